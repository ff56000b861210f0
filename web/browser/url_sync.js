// url_sync.js - the address mirrors the page: every view of the lab is a
// link. history.replaceState is a synchronous round trip to the browser
// process: about 1 ms, but 20 ms and more one call in twenty (Chromium 156,
// 2x CPU throttling). So it never runs inside a render: the hash is written
// after the frame that shows the change is painted, and while the state
// changes fast (a dragged slider, quick typing) at most every WRITE_MS, the
// last state always. <html data-hash="pending"> marks a write still to come
// (tests wait for it).
const WRITE_MS = 200;

// currentHash() gives the hash the page should have now; onLink(hash) is
// called when the address changes from outside (a pasted link, back and
// forward), never for the page's own writes. It may return a promise (a
// tour link waits for the tour's code): until it settles nothing is written,
// since the state is still the one the link replaces.
export function createUrlSync({ currentHash, onLink }) {
  // The first write (a default page gets its state in the address) waits
  // like any other: the first verdicts need not wait for it.
  let writtenAt = performance.now();
  let cancel = null; // of the write to come, while one is scheduled
  let known = window.location.hash.slice(1); // the hash as the page last read or wrote it
  let linking = null; // onLink's promise for a link still being loaded

  // hash: currentHash(), when the caller has it already.
  function write(hash = currentHash()) {
    cancel?.();
    cancel = null;
    delete document.documentElement.dataset.hash;
    if (linking) return; // the render that applies the link mirrors it
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
    if (cancel !== null || window.location.hash.slice(1) === hash) return;
    const wait = writtenAt + WRITE_MS - performance.now();
    document.documentElement.dataset.hash = 'pending';
    if (wait > 0) {
      const timer = setTimeout(() => write(), wait);
      cancel = () => clearTimeout(timer);
    } else {
      // after the paint: the next frame's callback, then a task of its own
      // (a hidden tab gets no frames: the timer writes there)
      let timer = setTimeout(() => write(), 100);
      const frame = requestAnimationFrame(() => {
        clearTimeout(timer);
        timer = setTimeout(() => write(), 0);
      });
      cancel = () => { cancelAnimationFrame(frame); clearTimeout(timer); };
    }
  }

  window.addEventListener('pagehide', () => write());
  window.addEventListener('hashchange', () => {
    known = window.location.hash.slice(1);
    if (known === currentHash()) return;
    const done = Promise.resolve(onLink(window.location.hash)).finally(() => { if (linking === done) linking = null; });
    linking = done;
  });

  // Before a change that loses the student's work (Start over): the page as
  // it is stays in the history, so that Back brings it back. The next write
  // replaces the new entry, not the kept one.
  function keep() {
    write();
    if (linking || window.location.hash.slice(1) !== known) return;
    window.history.pushState(null, '', window.location.href);
  }

  // `link()`: the address of the page as it is, written out first.
  return { mirror, keep, link: () => { write(); return window.location.href; } };
}
