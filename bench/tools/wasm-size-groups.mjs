// Groups twiggy's `top --format json` rows (shallow bytes) by what they belong to.
//   node bench/tools/wasm-size-groups.mjs top.json
import { readFileSync } from 'node:fs';

const rows = JSON.parse(readFileSync(process.argv[2], 'utf8'));
function group(n) {
  // v0 symbol names (RUSTC_BOOTSTRAP=1 builds, scripts/wasm-std.sh) carry a crate hash: `core[27cd…]::fmt`.
  n = n.replace(/\[[0-9a-f]+\]/g, '');
  if (n.startsWith('"function names"') || n.startsWith('"data names"') || n.startsWith('custom section')) return null;
  if (n.startsWith('data segment')) return 'data segments (strings, tables)';
  if (/externref shim|^__wbg|^__wbindgen|^<?wasm_bindgen|^<?js_sys|^<?web_sys|wasm_bindgen::|js_sys::|web_sys::|^mcpclient_|^task_/.test(n)) return 'wasm-bindgen / js-sys glue';
  if (/impl serde_core::ser::Serialize for|serde_core::ser|serde_json::ser/.test(n)) return 'serde: Serialize (derives + serde_json::ser)';
  if (/impl serde_core::de::Deserialize|Visitor|serde_json::de|serde_core::de|serde_json::value::de|deserialize|serde::private|serde_json::read|serde_json::error/.test(n)) return 'serde: Deserialize (derives + serde_json::de)';
  if (/flt2dec|dec2flt|f64 as core|f32 as core|float|zmij|bignum/.test(n)) return 'core: float formatting / parsing';
  if (/core::fmt|core\[[0-9a-f]+\]::fmt|Formatter|alloc::fmt|Display>::fmt|Debug>::fmt|escape_debug|unicode|PadAdapter/.test(n)) return 'core: fmt (format!, Debug, Display)';
  if (/dlmalloc|talc|__rdl_|__rust_alloc|__rust_dealloc|__rust_realloc/.test(n)) return 'allocator (dlmalloc or talc)';
  const m = /mcp_wasm_client::(\w+)(?:::(\w+))?/.exec(n);
  if (m) return `ours: ${m[1]}${['engine', 'protocol', 'schema', 'web', 'http'].includes(m[1]) && m[2] ? `::${m[2]}` : ''}`;
  if (/indexmap|hashbrown|hash::sip|hash::random|HashMap|HashSet/.test(n)) return 'indexmap / hashbrown / SipHash';
  if (/base64/.test(n)) return 'base64';
  if (/memchr/.test(n)) return 'memchr';
  if (/gloo/.test(n)) return 'gloo-timers';
  if (/btree/.test(n)) return 'alloc: BTreeMap';
  if (/^code\[/.test(n)) return 'unnamed functions';
  if (/core|alloc|std/.test(n)) return 'core / alloc / std (other)';
  return 'other';
}
const totals = new Map();
let sum = 0;
for (const r of rows) {
  const g = group(r.name);
  if (!g) continue;
  totals.set(g, (totals.get(g) || 0) + r.shallow_size);
  sum += r.shallow_size;
}
console.log(`wasm code + data, by owner (shallow bytes after wasm-opt -Oz; inlined code counts for its caller): ${sum.toLocaleString('en-US')} B`);
const ours = [...totals].filter(([g]) => g.startsWith('ours')).reduce((a, [, v]) => a + v, 0);
console.log(`  ours in all: ${ours.toLocaleString('en-US')} B (${((100 * ours) / sum).toFixed(1)} %)`);
for (const [g, v] of [...totals].sort((a, b) => b[1] - a[1])) console.log(`${v.toLocaleString('en-US').padStart(10)} B ${((100 * v) / sum).toFixed(1).padStart(5)} %  ${g}`);
