// The raw fetch loop with the strict reader 'transfer' (bench/clients/raw.js `readers`): the
// body read whole and decoded as our client does, its ArrayBuffer then detached so that its
// memory could go before the parse (it does not lower the peak: BENCHMARKS.md, the
// twenty-third session; bench/tools/chromium-large-memory.mjs).
import { open as openRaw } from './raw.js';

export const name = 'raw-transfer';

export const open = (url, opts = {}) => openRaw(url, { ...opts, strict: 'transfer' });
