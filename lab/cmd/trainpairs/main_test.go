package main

import "testing"

func TestParseManName(t *testing.T) {
	for _, c := range []struct{ src, names, what string }{
		{".TH LS 1\n.SH NAME\nls \\- list directory contents\n.SH SYNOPSIS\n", "ls", "list directory contents"},
		{".SH NAME\nprintf, fprintf, dprintf,\nvsprintf \\- formatted output conversion\n.SH LIBRARY\n", "printf, fprintf, dprintf, vsprintf", "formatted output conversion"},
		{".SH \"NAME\"\n.B git\\-log\n\\- Show commit logs\n.SH X\n", "git-log", "Show commit logs"},
		{".SH NAME\n\\fBfoo\\fR \\(em do \\fIthings\\fP.\n.SH X\n", "foo", "do things"},
		{".Dd x\n.Sh NAME\n.Nm ssh\n.Nd OpenSSH remote login client\n.Sh SYNOPSIS\n", "ssh", "OpenSSH remote login client"},
		{".\\\" comment\n.SH NAME\n.\\\" another\nman-pages \\- conventions for writing Linux man pages\n", "man-pages", "conventions for writing Linux man pages"},
	} {
		names, what, ok := parseManName(c.src)
		if !ok || names != c.names || what != c.what {
			t.Errorf("parseManName(%q) = %q, %q, %v; want %q, %q", c.src, names, what, ok, c.names, c.what)
		}
	}
	for _, src := range []string{".so man3/printf.3\n", ".SH NAME\nno dash here\n.SH X\n", ".SH SYNOPSIS\nx \\- y\n"} {
		if n, w, ok := parseManName(src); ok {
			t.Errorf("parseManName(%q) = %q, %q, want no NAME", src, n, w)
		}
	}
}

func TestParseSynset(t *testing.T) {
	line := `00001740 00 a 01 able 0 005 = 05207437 n 0000 | (usually followed by 'to') having the necessary means or skill or know-how or authority to do something; "able to swim"; "she was able to program her computer"  `
	lemmas, def, ok, err := parseSynset(line)
	if err != nil || !ok || len(lemmas) != 1 || lemmas[0] != "able" || def != "(usually followed by 'to') having the necessary means or skill or know-how or authority to do something" {
		t.Errorf("got %q %q %v %v", lemmas, def, ok, err)
	}
	line = `02958343 06 n 05 car 0 auto 0 automobile 0 machine 0 motorcar 0 000 | a motor vehicle with four wheels; usually propelled by an internal combustion engine; "he needs a car to get to work"  `
	lemmas, def, ok, err = parseSynset(line)
	if err != nil || !ok || len(lemmas) != 5 || def != "a motor vehicle with four wheels; usually propelled by an internal combustion engine" {
		t.Errorf("got %q %q %v %v", lemmas, def, ok, err)
	}
	line = `00003356 00 a 02 unable(p) 0 Big_Apple 0 000 | x`
	if lemmas, _, _, _ := parseSynset(line); len(lemmas) != 2 || lemmas[0] != "unable" || lemmas[1] != "Big Apple" {
		t.Errorf("got %q", lemmas)
	}
	if _, _, ok, _ := parseSynset("  1 This software and database is being provided"); ok {
		t.Error("licence header parsed as a synset")
	}
}
