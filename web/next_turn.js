// next_turn.js - a promise that resolves in a task of its own, for long
// loops that give the page's input and frames a turn (a checkpoint's read,
// a checkpoint's chart computed in slices).
//
// A message, not a timer: browsers hold nested timers back 4 ms each. One
// channel for the module's life rather than one per turn: a port made for
// a single message is reachable only through its own handler until the
// message lands, and if the engine ever let it go, that turn would never
// end. (Under load, with a channel a turn, a read once waited for good, and
// 4 tasks in ~220 probe rounds ran ~100 ms in such a handler; none in 120
// rounds with one channel. Not proof of the cause.) Turns resolve in the
// order they were asked for, as their messages arrive.
const waiting = [];
let channel = null;

export function nextTurn() {
  // Node: setImmediate, since a Node port hands over every message it has
  // queued in one go, so that turns through one port would never let its
  // timers in.
  if (typeof setImmediate === 'function') return new Promise((resolve) => { setImmediate(resolve); });
  if (typeof MessageChannel !== 'function') return new Promise((resolve) => { setTimeout(resolve, 0); });
  if (!channel) {
    channel = new MessageChannel();
    channel.port1.onmessage = () => { waiting.shift()(); };
  }
  return new Promise((resolve) => {
    waiting.push(resolve);
    channel.port2.postMessage(null);
  });
}
