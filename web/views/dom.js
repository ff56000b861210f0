// dom.js - the DOM helpers every panel uses: each writes only on a change.

// Rewrites text only when it changed, and in place when the node holds one
// text node: changing its data re-lays out that text alone, where assigning
// textContent swaps the node and restyles it (on every slider step).
export function setText(node, text) {
  const only = node.firstChild;
  if (only && only === node.lastChild && only.nodeType === Node.TEXT_NODE) {
    if (only.data !== text) only.data = text;
  } else if (node.textContent !== text) {
    node.textContent = text;
  }
}

export function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

// Attribute writes only on a change: rewriting an attribute with its own
// value still invalidates the element's style, on every slider step.
export function setHidden(node, hidden) {
  if (node.hidden !== hidden) node.hidden = hidden;
}

export function setChecked(input, checked) {
  if (input.checked !== checked) input.checked = checked;
}

export function setAttr(node, name, value) {
  if (node.getAttribute(name) !== value) node.setAttribute(name, value);
}

// A table's roles stated outright, for a table the CSS sets out as grid
// rows or cards in a narrow column: browsers drop a table's semantics
// along with its display. Returns the node.
export function withRole(node, role) {
  node.setAttribute('role', role);
  return node;
}
