// The parts of a budget, each in its own file with its method written down:
//
//   - The model table (models.go, data in models.toml): window, max output
//     and encoding per model, with aliases and name normalisation (provider
//     prefixes and version suffixes are stripped, then the longest table
//     name that prefixes the query wins). Models whose tokenizer is not a
//     tiktoken encoding are counted with o200k_base × a per-family safety
//     factor, measured against each family's published tokenizer where one
//     exists (testdata/factors), and flagged Estimate. Table.With applies
//     configuration overrides without modifying the table.
//   - The arithmetic (arith.go): input limit = window − reserve − margin,
//     and Allocate's split of it between pinned sections (system, task) and
//     flexible ones (history, repository context) that share the rest.
//   - Chat accounting (chat.go): OpenAI's cookbook method for message
//     framing and tool definitions, so that a whole request is counted.
//   - Overflow errors (fromerror.go): FromError reads the window, and where
//     stated the prompt and output sizes, from providers' error texts.
//   - Fitting (fit.go): Fit trims a text to an exact budget, keeping head
//     and tail at line boundaries, with a marker saying what was dropped.
//
// Every count that decides whether something fits is made on the final
// text with the real Counter; sums of parts are only used to choose what to
// cut, never to promise that the result fits.
package budget
