// What a size lever can take at most: the module's gzip -9 size without the code that only
// the named functions reach. Reads the named module of bench/profile-size.sh (run that
// first), makes each function whose name matches one of the patterns opaque (its body
// becomes a call to an import of the same signature, so its callers keep all their code:
// nothing downstream is assumed unreachable), removes what no longer has a reference,
// and prints the gzip -9 size of that module beside the same pipeline without stubs.
//
//   node bench/tools/wasm-without.mjs 'serde_json\[[0-9a-f]+\]::de::' 'web::options'
//
// The difference is an upper bound on a lever that removes those functions: what replaces
// them is not counted. Patterns are JavaScript regular expressions over twiggy's names
// (the `name` section: `<crate[hash]::module::Type>::method`, generics spelled out).
import binaryen from 'binaryen';
import fs from 'node:fs';
import zlib from 'node:zlib';

const input = process.env.WASM ?? 'bench/out/size-profile/named.wasm';
const patterns = process.argv.slice(2).map((p) => new RegExp(p));
if (!patterns.length) {
  console.error('usage: node bench/tools/wasm-without.mjs <regexp>... (WASM=named module)');
  process.exit(2);
}

function measure(stub) {
  const m = binaryen.readBinary(fs.readFileSync(input));
  m.setFeatures(binaryen.Features.All);
  let stubbed = 0;
  const imports = new Map();
  if (stub) {
    for (let i = 0; i < m.getNumFunctions(); i++) {
      const f = m.getFunctionByIndex(i);
      const info = binaryen.getFunctionInfo(f);
      if (info.module || !patterns.some((p) => p.test(info.name))) continue;
      const key = `${info.params}:${info.results}`;
      if (!imports.has(key)) {
        const name = `without_stub_${imports.size}`;
        m.addFunctionImport(name, 'without', `s${imports.size}`, info.params, info.results);
        imports.set(key, name);
      }
      const params = binaryen.expandType(info.params);
      const call = m.call(
        imports.get(key),
        params.map((t, j) => m.local.get(j, t)),
        info.results,
      );
      binaryen.Function.setBody(f, call);
      stubbed++;
    }
  }
  m.runPasses(['remove-unused-module-elements']);
  // SHOW=<regexp>: list what is left of the functions it matches (does a family go away?).
  if (stub && process.env.SHOW) {
    const show = new RegExp(process.env.SHOW);
    for (let i = 0; i < m.getNumFunctions(); i++) {
      const info = binaryen.getFunctionInfo(m.getFunctionByIndex(i));
      if (!info.module && show.test(info.name)) console.log(`left: ${info.name.slice(0, 160)}`);
    }
  }
  m.runPasses(['reorder-functions-by-name', 'strip-debug']);
  const bin = m.emitBinary();
  m.dispose();
  return { stubbed, raw: bin.length, gzip: zlib.gzipSync(bin, { level: 9 }).length };
}

const base = measure(false);
const without = measure(true);
console.log(`module: ${input}`);
console.log(`functions made opaque: ${without.stubbed}`);
console.log(`baseline:  ${base.raw} B raw, ${base.gzip} B gzip -9`);
console.log(`without:   ${without.raw} B raw, ${without.gzip} B gzip -9`);
console.log(`upper bound of the lever: ${base.raw - without.raw} B raw, ${base.gzip - without.gzip} B gzip -9`);
