// why_panel.js - the "Why each scheme works" panel, bundled on its own and
// loaded the first time a student opens the panel (page.js): a tenth of
// the page's script, for a panel most visits never open.
export { createWhy } from './views/why.js';
export { createOwnLabClaims } from './teach/why_claims.js';
