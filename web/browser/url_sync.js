// url_sync.js - the address mirrors the page: every view of the lab is a
// link. history.replaceState costs a few ms per call, so while the state
// changes fast (a dragged slider, quick typing) the hash is written at most
// every WRITE_MS, the last state always. <html data-hash="pending"> marks a
// write still to come (tests wait for it).
const WRITE_MS = 200;

// currentHash() gives the hash the page should have now; onLink(hash) is
// called when the address changes from outside (a pasted link, back and
// forward), never for the page's own writes.
export function createUrlSync({ currentHash, onLink }) {
  // The first write (a default page gets its state in the address) waits
  // like any other: the first verdicts need not wait for it.
  let writtenAt = performance.now();
  let timer = null;
  let known = window.location.hash.slice(1); // the hash as the page last read or wrote it

  // hash: currentHash(), when the caller has it already.
  function write(hash = currentHash()) {
    clearTimeout(timer);
    timer = null;
    delete document.documentElement.dataset.hash;
    const shown = window.location.hash.slice(1);
    // Changed from outside since: its hashchange event is on the way and
    // will load it; writing now would undo it.
    if (shown !== known) return;
    if (shown === hash) return;
    window.history.replaceState(null, '', `#${hash}`);
    known = window.location.hash.slice(1); // as the browser keeps it
    writtenAt = performance.now();
  }

  // After every render; a delayed write reads the state as it is then.
  function mirror(hash) {
    if (timer !== null || window.location.hash.slice(1) === hash) return;
    const wait = writtenAt + WRITE_MS - performance.now();
    if (wait <= 0) {
      write(hash);
    } else {
      timer = setTimeout(() => write(), wait);
      document.documentElement.dataset.hash = 'pending';
    }
  }

  window.addEventListener('pagehide', () => write());
  window.addEventListener('hashchange', () => {
    known = window.location.hash.slice(1);
    if (known !== currentHash()) onLink(window.location.hash);
  });

  // `link()`: the address of the page as it is, written out first.
  return { mirror, link: () => { write(); return window.location.href; } };
}
