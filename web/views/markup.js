// markup.js - elements from a nested description, for the parts whose
// markup comes with their code (loaded on demand) instead of with
// index.html: h('p', {class: 'note', id: 'x'}, 'text', h('b', {}, 'more')).
// Strings become text nodes: nothing is parsed as HTML (the security tests
// keep the scripts free of HTML sinks). Attributes come from the page's own
// constants, never from input.
const SVG_NS = 'http://www.w3.org/2000/svg';

export function h(tag, attrs = {}, ...children) {
  const node = tag === 'svg' ? document.createElementNS(SVG_NS, tag) : document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, value);
  node.append(...children);
  return node;
}
