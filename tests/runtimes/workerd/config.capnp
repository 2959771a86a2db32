# workerd configuration of the runtime test (tests/runtimes/run.mjs) and of bench/edge.mjs:
#
#   node tests/runtimes/workerd/bundle.mjs       # -> test-output/runtimes/workerd/{worker.js,*.wasm}
#   node_modules/.bin/workerd serve tests/runtimes/workerd/config.capnp --socket-addr http=127.0.0.1:8787
#
# The modules are the ones Wrangler uploads for a worker importing the package: the bundled
# JavaScript (an ES module) and the package's .wasm as a `wasm` module, which the bundle
# imports by name and receives as a compiled WebAssembly.Module.
# The MCP server's URL is not in here: each request names it (?mcp=...).
using Workerd = import "/workerd/workerd.capnp";

const config :Workerd.Config = (
  services = [
    (name = "main", worker = .worker),
    # Outbound fetches. The default "internet" service allows public addresses only; the
    # test server listens on loopback, which is "local" (and "private" is a superset).
    (name = "loopback", network = (allow = ["local"])),
  ],
  sockets = [
    # The port is given on the command line (--socket-addr http=127.0.0.1:<port>).
    (name = "http", address = "127.0.0.1:8787", http = (), service = "main"),
  ],
);

const worker :Workerd.Worker = (
  modules = [
    (name = "worker.js", esModule = embed "../../../test-output/runtimes/workerd/worker.js"),
    (name = "mcp_wasm_client_bg.wasm", wasm = embed "../../../test-output/runtimes/workerd/mcp_wasm_client_bg.wasm"),
  ],
  compatibilityDate = "2026-11-17",
  globalOutbound = "loopback",
);
