package slicer

import (
	"path"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/ctxtrim/ctxtrim/slicer/internal/ascii"
)

// This file replaces well-known credential shapes with a placeholder that
// names the rule, so that a prompt never carries a live secret. Redaction
// keeps line numbers: a multi-line secret keeps its line breaks.

// Redaction records one replaced secret.
type Redaction struct {
	Path string `json:"path"`
	Line int    `json:"line"` // 1-based line where the secret starts
	Rule string `json:"rule"`
}

// redactRule is one credential shape. The secret is the whole match, or
// the submatch named "secret" when the pattern has one.
type redactRule struct {
	name string
	re   *regexp.Regexp
	// needles are literals of which every match contains one; the
	// regular expression only runs on text that holds one of them, which
	// makes redaction of ordinary code nearly free. Needles are matched
	// against the lowercased text.
	needles []string
}

// redactRules returns the credential shapes, most specific first. They are
// compiled on first use, once (compiling them at package initialisation cost
// every ctxtrim process half a millisecond, redacting or not); they are
// immutable, so sharing them is safe.
var redactRules = sync.OnceValue(func() []redactRule {
	return []redactRule{
		{"private-key", regexp.MustCompile(`-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----`), []string{"private key"}},
		{"aws-access-key-id", regexp.MustCompile(`\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b`), []string{"akia", "asia", "abia", "acca"}},
		{"aws-secret-access-key", regexp.MustCompile(`(?i)aws_?secret_?(?:access_?)?key["']?\s*[:=]\s*["']?(?P<secret>[A-Za-z0-9/+=]{40})\b`), []string{"aws"}},
		{"github-token", regexp.MustCompile(`\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{60,255})\b`), []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"}},
		{"gitlab-token", regexp.MustCompile(`\bglpat-[A-Za-z0-9_\-]{20,}\b`), []string{"glpat-"}},
		{"slack-token", regexp.MustCompile(`\bxox[abposr]-[A-Za-z0-9-]{10,}\b`), []string{"xox"}},
		{"slack-webhook", regexp.MustCompile(`https://hooks\.slack\.com/services/[A-Za-z0-9/]{20,}`), []string{"hooks.slack.com"}},
		{"google-api-key", regexp.MustCompile(`\bAIza[0-9A-Za-z_\-]{35}\b`), []string{"aiza"}},
		{"stripe-key", regexp.MustCompile(`\b(?:sk|rk)_live_[0-9A-Za-z]{16,}\b`), []string{"_live_"}},
		{"anthropic-key", regexp.MustCompile(`\bsk-ant-[A-Za-z0-9_\-]{20,}\b`), []string{"sk-ant-"}},
		{"openai-key", regexp.MustCompile(`\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,}T3BlbkFJ[A-Za-z0-9_\-]{20,}\b|\bsk-(?:proj|svcacct|admin)-[A-Za-z0-9_\-]{40,}\b`), []string{"sk-"}},
		{"npm-token", regexp.MustCompile(`\bnpm_[A-Za-z0-9]{36}\b`), []string{"npm_"}},
		{"jwt", regexp.MustCompile(`\beyJ[A-Za-z0-9_\-]{10,}\.eyJ[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,}\b`), []string{"eyj"}},
		{"url-password", regexp.MustCompile(`\b[a-z][a-z0-9+.\-]*://[^\s:/@"']+:(?P<secret>[^\s@/"']{3,})@`), []string{"://"}},
		{"secret-assignment", regexp.MustCompile(`(?i)\b[a-z0-9_.\-]*(?:password|passwd|secret|api_?key|access_?token|auth_?token|client_?secret)["']?\s*[:=]\s*["'](?P<secret>[^"'\s]{12,})["']`), []string{"passw", "secret", "key", "token"}},
	}
})

// Redact returns src with secrets replaced by "[REDACTED:rule]" and the
// list of replacements. In .env files (.env, .env.*, *.env) every
// assignment's value is redacted too. It never drops content other than
// the secrets, and keeps line breaks.
func Redact(filePath, src string) (string, []Redaction) {
	type span struct {
		start, end int
		rule       string
	}
	var spans []span
	lower := strings.ToLower(src)
	for _, r := range redactRules() {
		found := false
		for _, n := range r.needles {
			if strings.Contains(lower, n) {
				found = true
				break
			}
		}
		if !found {
			continue
		}
		secret := r.re.SubexpIndex("secret")
		for _, m := range r.re.FindAllStringSubmatchIndex(src, -1) {
			s, e := m[0], m[1]
			if secret > 0 && m[2*secret] >= 0 {
				s, e = m[2*secret], m[2*secret+1]
			}
			if r.name == "secret-assignment" && !looksSecret(src[s:e]) {
				continue
			}
			spans = append(spans, span{s, e, r.name})
		}
	}
	if isEnvFile(filePath) {
		off := 0
		for _, line := range strings.SplitAfter(src, "\n") {
			body := strings.TrimRight(line, "\r\n")
			t := strings.TrimSpace(body)
			if eq := strings.IndexByte(body, '='); eq > 0 && !strings.HasPrefix(t, "#") {
				v := strings.TrimSpace(body[eq+1:])
				if v != "" && v != `""` && v != "''" {
					spans = append(spans, span{off + eq + 1, off + len(body), "env-value"})
				}
			}
			off += len(line)
		}
	}
	if len(spans) == 0 {
		return src, nil
	}
	sort.Slice(spans, func(a, b int) bool {
		if spans[a].start != spans[b].start {
			return spans[a].start < spans[b].start
		}
		return spans[a].end > spans[b].end
	})
	var b strings.Builder
	var reds []Redaction
	pos, line := 0, 1
	for _, sp := range spans {
		if sp.start < pos {
			continue // inside a secret already replaced
		}
		line += strings.Count(src[pos:sp.start], "\n")
		b.WriteString(src[pos:sp.start])
		b.WriteString("[REDACTED:" + sp.rule + "]")
		nl := strings.Count(src[sp.start:sp.end], "\n")
		b.WriteString(strings.Repeat("\n", nl))
		reds = append(reds, Redaction{Path: filePath, Line: line, Rule: sp.rule})
		line += nl
		pos = sp.end
	}
	b.WriteString(src[pos:])
	return b.String(), reds
}

// looksSecret reports whether an assigned value looks like a credential
// rather than a placeholder, a variable or a sentence: letters and digits
// mixed, no template syntax.
func looksSecret(v string) bool {
	if strings.ContainsAny(v, "${}<>") || strings.Contains(strings.ToLower(v), "example") ||
		strings.Contains(strings.ToLower(v), "changeme") || strings.Contains(strings.ToLower(v), "xxxx") {
		return false
	}
	var letters, digits bool
	for _, c := range []byte(v) {
		letters = letters || ascii.IsLetter(c)
		digits = digits || ascii.IsDigit(c)
	}
	return letters && digits
}

// isEnvFile reports whether p is a dotenv file.
func isEnvFile(p string) bool {
	base := path.Base(p)
	if strings.HasSuffix(base, ".example") || strings.HasSuffix(base, ".sample") || strings.HasSuffix(base, ".template") {
		return false
	}
	return base == ".env" || strings.HasPrefix(base, ".env.") || strings.HasSuffix(base, ".env")
}
