// Package check checks the prompt files a repository keeps for agents
// against their budgets: which files there are (AGENTS.md and its Codex
// chain, CLAUDE.md, Copilot's instructions, prompts/**, and the rules of
// the [check] section of .ctxtrim.toml), the budget each one has, and how
// Codex assembles AGENTS.md files; and, for a staged diff, how many review
// requests of a budget it needs (Review).
//
// Codex's project-doc rules (codex-rs/core/src/project_doc.rs, Codex docs
// "Custom instructions with AGENTS.md"): in every directory from the git
// root down to the working directory Codex takes the first of
// AGENTS.override.md, AGENTS.md (then project_doc_fallback_filenames)
// that exists, reads at most project_doc_max_bytes in total, cuts the file
// that crosses the limit and drops the rest, and joins the parts with
// blank lines. Whitespace-only files are skipped and cost nothing. Repo
// reports, for each AGENTS file, the chain Codex loads in its directory
// and what Codex would cut.
//
// The other files are held to the last matching Rule: the built-in ones
// (each with its source, in Rule.Why) unless Config.NoDefaults, replaced
// or extended by Config.Files. A file is over when any non-zero limit
// (tokens, bytes, chars) is exceeded.
//
// The package reads the files it checks and never writes them. A file
// that cannot be checked (unreadable, binary, not UTF-8) is reported as a
// "warn" Result with its Problem, and the others are still checked. It prints nothing; the ctxtrim check command (internal/cli)
// owns flags, output and exit codes. Repo and Review are safe for
// concurrent use; Config is read, never modified.
package check
