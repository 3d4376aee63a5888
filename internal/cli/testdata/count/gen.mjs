// Records reference token counts for internal/cli/testdata/count with npm's tiktoken
// (OpenAI's Rust tiktoken compiled to WASM), special-token text as plain text.
import { get_encoding } from "tiktoken";
import { readFileSync, readdirSync } from "fs";
const dir = process.argv[2];
const out = {};
for (const f of readdirSync(dir).filter(f => f.endsWith(".txt")).sort()) {
  const text = readFileSync(dir + "/" + f, "utf8");
  out[f] = {};
  for (const e of ["cl100k_base", "o200k_base"]) {
    const enc = get_encoding(e);
    out[f][e] = enc.encode_ordinary(text).length;
    enc.free();
  }
}
console.log(JSON.stringify(out, null, 2));
