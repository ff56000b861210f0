// frame.js - the lab's side of an iframe (embed mode; loaded only there).
// The Embed dialog's snippet carries the few lines for the page around it.
//
// reportHeight: the lab tells that page how tall it is, whenever that
// changes, so that it can grow the frame to fit (only the height is sent).
//
// followView: that page tells the lab which part of the frame is in sight
// as it scrolls. Grown to the lab's full height, the frame's own edges are
// the lab's ends, mostly off screen, and so were the result bar, the tour's
// strip and the status line fixed to them, and a dialog centred in it. They
// now stand at the edges of the part in sight. Without the message (a page
// that strips scripts, a frame that scrolls itself) nothing changes.
export function reportHeight(win = window) {
  if (win.parent === win) return;
  let last = 0;
  const send = () => {
    const height = Math.ceil(win.document.documentElement.getBoundingClientRect().height);
    if (height !== last) {
      last = height;
      win.parent.postMessage({ poslab: 'height', height }, '*');
    }
  };
  new ResizeObserver(send).observe(win.document.documentElement);
  send();
}

export function followView(win = window) {
  if (win.parent === win) return;
  const doc = win.document;
  let band = null;
  const place = () => {
    if (!band) return;
    const { top, gap } = band;
    for (const el of [doc.getElementById('result-bar'), doc.getElementById('run-status')]) el.style.translate = `0 ${-gap}px`;
    const strip = doc.querySelector('.tour-strip');
    if (strip) strip.style.translate = `0 ${top}px`;
    for (const dialog of doc.querySelectorAll('dialog[open]')) {
      Object.assign(dialog.style, { top: `${top}px`, bottom: `${gap}px`, maxHeight: `calc(${win.innerHeight - top - gap}px - 2rem)` });
    }
  };
  win.addEventListener('message', (e) => {
    const d = e.data;
    if (e.source !== win.parent || d?.poslab !== 'view' || !Number.isFinite(d.top) || !Number.isFinite(d.bottom)) return;
    // (a band under 200 px, a frame scrolled nearly away, keeps the edges)
    const top = Math.max(0, d.top), bottom = Math.min(win.innerHeight, d.bottom);
    band = bottom - top < 200 ? { top: 0, gap: 0 } : { top, gap: win.innerHeight - bottom };
    place();
  });
  // a dialog opened after the last message
  new MutationObserver(place).observe(doc.body, { attributeFilter: ['open'], subtree: true });
}
