package install

import (
	"slices"
	"testing"

	"github.com/megagit/megagit/hook"
)

// The plugin's commands line is what install, doctor and the hooks read
// back: every command, each of its kind.
func TestOpencodePluginCommands(t *testing.T) {
	entries, err := AgentEntries(hook.AgentOpencode, "megagit -C 'my reg'", "megagit-hook")
	if err != nil {
		t.Fatal(err)
	}
	data := OpencodePlugin(entries)
	if !ownPlugin(data) {
		t.Fatal("the plugin does not start with megagit's header")
	}
	cmds := hook.HookCommands(data)
	slices.Sort(cmds)
	want := []string{"megagit -C 'my reg' hook stop --agent opencode", "megagit-hook prompt --agent opencode", "megagit-hook session-start --agent opencode"}
	if !slices.Equal(cmds, want) {
		t.Errorf("commands = %q, want %q", cmds, want)
	}
	again, err := merge(hook.AgentOpencode, data, entries)
	if err != nil || string(again) != string(data) {
		t.Errorf("a second install changed the plugin (%v)", err)
	}
	if _, err := merge(hook.AgentOpencode, []byte("export const Mine = 1\n"), entries); err == nil {
		t.Error("install overwrote a plugin that is not megagit's")
	}
	if out, _ := remove(hook.AgentOpencode, data); out != nil {
		t.Error("uninstall kept megagit's plugin")
	}
}

// Copilot CLI's hooks file: a flat handler list per event, keyed "bash".
func TestCopilotMergeRemove(t *testing.T) {
	entries, _ := AgentEntries(hook.AgentCopilot, "megagit", "megagit-hook")
	user := []byte(`{"version": 1, "hooks": {"agentStop": [{"type": "command", "bash": "./notify.sh"}]}}`)
	got, err := MergeCopilot(user, entries)
	if err != nil {
		t.Fatal(err)
	}
	if kinds := ourKinds(got); !kinds["prompt"] || !kinds["stop"] || !kinds["session-start"] {
		t.Errorf("kinds = %v", kinds)
	}
	if again, _ := MergeCopilot(got, entries); string(again) != string(got) {
		t.Error("a second install changed the file")
	}
	back, err := RemoveCopilot(got)
	if err != nil {
		t.Fatal(err)
	}
	if want, _ := format(user); string(back) != string(want) {
		t.Errorf("uninstall left\n%s\nwant\n%s", back, want)
	}
	ours, _ := MergeCopilot(nil, entries)
	if out, err := RemoveCopilot(ours); out != nil || err != nil {
		t.Errorf("uninstall of a file megagit wrote alone = %q, %v; want nil (deleted)", out, err)
	}
}
