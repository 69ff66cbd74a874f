package gitauth

import "testing"

func TestRedact(t *testing.T) {
	tests := []struct{ in, want string }{
		{"https://bob:s3cret@example.com/x.git", "https://***@example.com/x.git"},
		{"fetch from origin (https://bob:s3cret@h:1/x.git): Get \"https://bob:***@h:1/x.git/info/refs?service=git-upload-pack\": refused",
			"fetch from origin (https://***@h:1/x.git): Get \"https://***@h:1/x.git/info/refs?service=git-upload-pack\": refused"},
		{"https://h/x.git?access_token=tok123&ref=main", "https://h/x.git?access_token=***&ref=main"},
		{"https://h/x.git?ref=main&private_token=abc", "https://h/x.git?ref=main&private_token=***"},
		{"https://ghp_abcdefghijklmnopqrstuvwxyz0123456789@github.com/o/r", "https://***@github.com/o/r"},
		{"https://x-access-token:abc@github.com/o/r", "https://***@github.com/o/r"},
		// A token as the user name, whatever it looks like: short, a JWT,
		// GitHub's TOKEN:x-oauth-basic.
		{"http://tok_ABCDEF123456@host/repo", "http://***@host/repo"},
		{"https://eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJtZSJ9.c2ln@h/r", "https://***@h/r"},
		{"https://abc123:x-oauth-basic@github.com/o/r", "https://***@github.com/o/r"},
		{"clone HTTP://tok@h/r: refused", "clone HTTP://***@h/r: refused"},
		{"git://tok@h/r", "git://***@h/r"},
		{"ssh://git:pw@h/r", "ssh://git:***@h/r"},
		{"git+ssh://me@h/r", "git+ssh://me@h/r"},
		{"fetch (https://h/x?access_token=tok): Get \"https://h/x?access_token=tok/info/refs?service=git-upload-pack\"",
			"fetch (https://h/x?access_token=***): Get \"https://h/x?access_token=***?service=git-upload-pack\""},
		{"clone https://h/x.git?access_token=tok: Get \"https://h/x.git?access_token=tok?service=git-upload-pack\": refused",
			"clone https://h/x.git?access_token=***: Get \"https://h/x.git?access_token=***?service=git-upload-pack\": refused"},
		{"see https://bob:pw@h/x.git, then https://h/y?token=t.", "see https://***@h/x.git, then https://h/y?token=***."},
		{"https://bob@example.com/x.git", "https://***@example.com/x.git"},
		{"ssh://git@github.com/o/r.git", "ssh://git@github.com/o/r.git"},
		{"git@github.com:o/r.git", "git@github.com:o/r.git"},
		{"file:///tmp/remote.git", "file:///tmp/remote.git"},
		{"https://bob:p@ss@example.com/x", "https://***@example.com/x"},
		{"https://***@example.com/x", "https://***@example.com/x"},
		{"no url here: a:b@c", "no url here: a:b@c"},
		{"https://example.com/a@b", "https://example.com/a@b"},
	}
	for _, tt := range tests {
		if got := Redact(tt.in); got != tt.want {
			t.Errorf("Redact(%q)\n = %q\nwant %q", tt.in, got, tt.want)
		}
	}
}

func TestStrip(t *testing.T) {
	tests := []struct{ in, want string }{
		{"https://bob:s3cret@example.com/x.git", "https://example.com/x.git"},
		{"http://tok_ABCDEF123456@host/repo", "http://host/repo"},
		{"https://eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJtZSJ9.c2ln@h/r", "https://h/r"},
		{"ssh://git:pw@h/r", "ssh://git@h/r"},
		{"https://***@h/r", "https://h/r"},
		{"https://ghp_abcdefghijklmnopqrstuvwxyz0123456789@github.com/o/r", "https://github.com/o/r"},
		{"https://x-access-token:abc@github.com/o/r", "https://github.com/o/r"},
		{"https://oauth2:glpat-abc@gitlab.com/o/r.git", "https://gitlab.com/o/r.git"},
		{"https://h/x.git?access_token=tok123&ref=main", "https://h/x.git?ref=main"},
		{"https://h/x.git?ref=main&private_token=abc", "https://h/x.git?ref=main"},
		{"https://h/x.git?token=abc", "https://h/x.git"},
		{"https://bob@example.com/x.git", "https://example.com/x.git"},
		{"ssh://git@github.com/o/r.git", "ssh://git@github.com/o/r.git"},
		{"git@github.com:o/r.git", "git@github.com:o/r.git"},
		{"file:///tmp/remote.git", "file:///tmp/remote.git"},
		{"/tmp/remote", "/tmp/remote"},
		{"https://bob:p@ss@example.com/x", "https://example.com/x"},
		{"https://example.com/a@b", "https://example.com/a@b"},
	}
	for _, tt := range tests {
		got := Strip(tt.in)
		if got != tt.want {
			t.Errorf("Strip(%q)\n = %q\nwant %q", tt.in, got, tt.want)
		}
		if Redact(got) != got {
			t.Errorf("Strip(%q) = %q still holds a secret", tt.in, got)
		}
	}
}

// A query parameter whose name, ignoring case, - and _, holds token,
// secret, sig, key, pass, auth or credential carries a credential.
func TestCredentialLikeParams(t *testing.T) {
	for _, name := range []string{"AccessToken", "access-token", "refresh_token", "job_token", "X-Goog-Signature",
		"X-Goog-Credential", "client-secret", "apiKey", "PassWord", "Authorization", "sas_sig", "access%5Ftoken"} {
		in := "https://h/x.git?ref=main&" + name + "=S3KR&b=1"
		if got, want := Redact(in), "https://h/x.git?ref=main&"+name+"=***&b=1"; got != want {
			t.Errorf("Redact(%q)\n = %q\nwant %q", in, got, want)
		}
		if got, want := Strip(in), "https://h/x.git?ref=main&b=1"; got != want {
			t.Errorf("Strip(%q)\n = %q\nwant %q", in, got, want)
		}
		in = "clone http://h/src.git?" + name + "=S3KR: refused"
		if got, want := Redact(in), "clone http://h/src.git?"+name+"=***: refused"; got != want {
			t.Errorf("Redact(%q)\n = %q\nwant %q", in, got, want)
		}
	}
	for _, in := range []string{"https://h/x.git?ref=main&depth=1", "https://h/x.git?service=git-upload-pack"} {
		if got := Redact(in); got != in {
			t.Errorf("Redact(%q) = %q, want it unchanged", in, got)
		}
		if got := Strip(in); got != in {
			t.Errorf("Strip(%q) = %q, want it unchanged", in, got)
		}
	}
}
