// The raw fetch loop reading each body as our client does for a large result outside Node:
// `arrayBuffer()` and a fatal `TextDecoder` (a body that is not UTF-8 is refused), not
// `text()`, which decodes as the body arrives and repairs what is not UTF-8. What the strict
// check costs in memory, beside raw fetch (BENCHMARKS.md, the twenty-first session):
//   CLIENTS=raw,raw-strict,ours,ts node bench/tools/chromium-large-memory.mjs
import { open as openRaw } from './raw.js';

export const name = 'raw-strict';

export const open = (url, opts = {}) => openRaw(url, { ...opts, strict: true });
