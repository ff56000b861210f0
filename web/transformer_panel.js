// transformer_panel.js - the transformer's views, bundled on their own and
// loaded the first time a student switches to transformer blocks
// (page.js): most visits stay with the module's one head.
export { createBlocks } from './views/blocks.js';
