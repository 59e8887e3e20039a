// Starts a real `kioko serve` on a free loopback port for the tests and for `npm run generate`.
// The Python that runs it: $KIOKO_PYTHON, else the repository's .venv (made by `make venv`), else python3.
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));

function packageRoot() {
  // scripts/ when run as a script, dist/scripts/ when imported by the compiled tests
  let dir = here;
  while (!existsSync(join(dir, "package.json"))) dir = dirname(dir);
  return dir;
}

export function python() {
  if (process.env.KIOKO_PYTHON) return process.env.KIOKO_PYTHON;
  const venv = resolve(packageRoot(), "..", "..", ".venv", "bin", "python");
  return existsSync(venv) ? venv : "python3";
}

/**
 * @param {{ args?: string[], keys?: object }} [options] extra `kioko serve` arguments; `keys` is written
 *   as the server's key file (its shape is `kioko keys-new`'s).
 * @returns {Promise<{ url: string, stop: () => Promise<void>, log: () => string }>}
 */
export async function startServer(options = {}) {
  const args = ["-m", "kioko", "serve", "--store", "memory://", "--port", "0", "--intelligence", ...(options.args ?? [])];
  if (options.keys) {
    const file = join(mkdtempSync(join(tmpdir(), "kioko-ts-")), "keys.json");
    writeFileSync(file, JSON.stringify(options.keys));
    args.push("--api-keys", file);
  }
  // the repository root first on the path, so a checkout's own code is what is served
  const root = resolve(packageRoot(), "..", "..");
  const env = { ...process.env, PYTHONPATH: [root, process.env.PYTHONPATH].filter(Boolean).join(":") };
  const child = spawn(python(), args, { env, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  const url = await new Promise((resolveUrl, reject) => {
    const timer = setTimeout(() => reject(new Error(`kioko serve did not start within 120 s:\n${output}`)), 120_000);
    const read = (chunk) => {
      output += chunk.toString();
      const found = /Uvicorn running on (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (found) {
        clearTimeout(timer);
        resolveUrl(found[1]);
      }
    };
    child.stdout.on("data", read);
    child.stderr.on("data", read);
    child.on("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`kioko serve exited with ${code} before it listened:\n${output}`));
    });
  });
  const stop = () =>
    new Promise((done) => {
      if (child.exitCode !== null) return done();
      child.on("exit", () => done());
      child.kill("SIGTERM");
    });
  return { url, stop, log: () => output };
}
