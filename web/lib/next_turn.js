// next_turn.js - a promise that resolves in a task of its own, for long
// loops that give the page's input and frames a turn (a checkpoint's read,
// a checkpoint's chart computed in slices).
//
// A message, not a timer: browsers hold nested timers back 4 ms each. One
// channel for the module's life rather than one per turn: a port made for
// a single message is reachable only through its own handler until the
// message lands, and if the engine ever let it go, that turn would never
// end. (A read under a stress probe, files chosen while the kept copy
// opens with one core busy, once waited for good with a channel a turn
// (in ~220 rounds); it did again with one channel (once in ~400), so that
// is not why: a log of each step showed the wait in a chosen file's
// stream, whose pending read a garbage collection had taken with its
// reader; checkpoints.js now holds readers while they read. The
// tasks of ~100 ms that probe met in these handlers are not this code's
// either: they come as often with one channel, in Chromium's own work too
// (a frame's commit), and a sampling profiler took 3 samples in one of
// them, where the page's busy tasks give it one every 300-450 us: the whole
// renderer had stopped.) Turns resolve in the order they were asked for,
// as their messages arrive.
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
