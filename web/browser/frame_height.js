// frame_height.js - in an iframe (?embed=1), the lab tells the page around
// it how tall it is, whenever that changes, so that the page can size the
// frame to fit (the Embed dialog's snippet carries the few lines that
// listen). Only the height is sent; loaded only in embed mode.
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
