package slicer

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestRedact(t *testing.T) {
	tests := []struct {
		name, path, in, want string
		rules                []string
	}{
		{
			name:  "aws access key id",
			path:  "deploy.py",
			in:    "key = 'AKIAIOSFODNN7EXAMPLE'\n",
			want:  "key = '[REDACTED:aws-access-key-id]'\n",
			rules: []string{"aws-access-key-id"},
		},
		{
			name:  "private key block keeps its lines",
			path:  "certs/key.pem",
			in:    "-----BEGIN RSA PRIVATE KEY-----\nMIIEow\nabc\n-----END RSA PRIVATE KEY-----\nafter\n",
			want:  "[REDACTED:private-key]\n\n\n\nafter\n",
			rules: []string{"private-key"},
		},
		{
			name:  "github token",
			path:  "ci.sh",
			in:    "export TOKEN=ghp_0123456789abcdefghijklmnopqrstuvwxyzAB\n",
			want:  "export TOKEN=[REDACTED:github-token]\n",
			rules: []string{"github-token"},
		},
		{
			name:  "secret assignment",
			path:  "settings.py",
			in:    "DB_PASSWORD = \"hunter2hunter2x9\"\n",
			want:  "DB_PASSWORD = \"[REDACTED:secret-assignment]\"\n",
			rules: []string{"secret-assignment"},
		},
		{
			name: "placeholder assignments stay",
			path: "settings.py",
			in:   "password = \"${DB_PASSWORD}\"\napi_key = \"your-api-key-here\"\n",
			want: "password = \"${DB_PASSWORD}\"\napi_key = \"your-api-key-here\"\n",
		},
		{
			name:  "dotenv values",
			path:  "service/.env",
			in:    "# comment\nDATABASE_URL=postgres://u:p4ss@h/db\nEMPTY=\nDEBUG=1\n",
			want:  "# comment\nDATABASE_URL=[REDACTED:env-value]\nEMPTY=\nDEBUG=[REDACTED:env-value]\n",
			rules: []string{"env-value", "env-value"},
		},
		{
			name: "ordinary code untouched",
			path: "auth.go",
			in:   "func checkPassword(password string) bool { return password == stored }\n",
			want: "func checkPassword(password string) bool { return password == stored }\n",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, reds := Redact(tc.path, tc.in)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Redact text (-want +got):\n%s", diff)
			}
			var rules []string
			for _, r := range reds {
				rules = append(rules, r.Rule)
			}
			if diff := cmp.Diff(tc.rules, rules); diff != "" {
				t.Errorf("Redact rules (-want +got):\n%s", diff)
			}
		})
	}
}

// FuzzRedact checks that redaction keeps the number of lines, so that line
// ranges stay valid, and that it is idempotent.
func FuzzRedact(f *testing.F) {
	f.Add(".env", "A=1\nB=two\n")
	f.Add("k.pem", "-----BEGIN PRIVATE KEY-----\nx\n-----END PRIVATE KEY-----")
	f.Add("x.go", `token := "ghp_0123456789abcdefghijklmnopqrstuvwxyzAB"`)
	f.Fuzz(func(t *testing.T, path, src string) {
		got, _ := Redact(path, src)
		if a, b := strings.Count(src, "\n"), strings.Count(got, "\n"); a != b {
			t.Fatalf("Redact changed the line count from %d to %d", a, b)
		}
		again, _ := Redact(path, got)
		if again != got {
			t.Fatalf("Redact is not idempotent:\n%q\n%q", got, again)
		}
	})
}
