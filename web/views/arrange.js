// arrange.js - where the panels stand for the width of the page.
// The controls that change the model sit at the top of the results, beside
// the verdicts, where the page is wide enough for them in two columns;
// between 760 and 1100 px, under the sentences, so that the results column
// is not the long one. On a phone (one column) every panel stands in the
// order a student works down it: the sentences, the two switches and the
// model, the verdicts, then the scheme, the magnitude right over the chart,
// and the rest. Moved rather than styled (CSS order), so that Tab and a
// screen reader's reading go in the order that is seen.
export function arrangePanels() {
  const $ = (id) => document.getElementById(id);
  const wide = window.matchMedia('(min-width: 1100px)'), phone = window.matchMedia('(max-width: 759.98px)');
  const group = (name) => document.querySelector(`[data-group="${name}"]`);
  const place = () => {
    const block = $('model-block'), slot = document.querySelector('.tour-slot');
    const [scheme, magnitude, advanced] = ['scheme', 'magnitude', 'advanced'].map(group);
    if (phone.matches) {
      $('sentences').after(block);
      $('verdicts').before(slot);
      $('blocks').before(scheme);
      $('plot').before(magnitude);
      $('export').after(advanced);
      return;
    }
    group('positions').after(scheme, magnitude);
    document.querySelector('.controls').append(advanced);
    if (wide.matches) document.querySelector('.results').prepend(slot, block); // a tour step first
    else $('sentences').after(block), $('verdicts').before(slot);
  };
  place();
  wide.addEventListener('change', place);
  phone.addEventListener('change', place);
}
