// The raw fetch loop with the strict reader 'clone' (bench/clients/raw.js `readers`): what a
// way of refusing a body that is not UTF-8 costs in memory, beside raw-strict.js's
// (BENCHMARKS.md, the twenty-fifth session; bench/tools/chromium-large-memory.mjs).
import { open as openRaw } from './raw.js';

export const name = 'raw-clone';

export const open = (url, opts = {}) => openRaw(url, { ...opts, strict: 'clone' });
