package install

import (
	"strings"
	"testing"
)

func TestUninstallKeepsWhatIsNotOurs(t *testing.T) {
	before := []byte(`{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"notify-send done"},{"type":"command","command":"/usr/bin/mem hook claude","timeout":5}]}],"Other":[]}}`)
	p, err := Uninstall("claude", "s.json", before)
	if err != nil || !p.Changed {
		t.Fatalf("changed %v, err %v", p.Changed, err)
	}
	got := string(p.After)
	if !strings.Contains(got, "notify-send done") || strings.Contains(got, "mem hook") || !strings.Contains(got, `"Other": []`) {
		t.Fatalf("got %s", got)
	}
}

func TestInstallTwiceIsUnchanged(t *testing.T) {
	for _, agent := range []string{"claude", "codex", "gemini"} {
		p, err := Install(agent, "s.json", nil, "/bin/mem")
		if err != nil {
			t.Fatal(err)
		}
		again, err := Install(agent, "s.json", p.After, "/bin/mem")
		if err != nil || again.Changed {
			t.Errorf("%s: second install changed the file (err %v)", agent, err)
		}
		u, _ := Uninstall(agent, "s.json", p.After)
		if strings.TrimSpace(string(u.After)) != "{}" {
			t.Errorf("%s: uninstall left %s", agent, u.After)
		}
	}
}

func TestOursMatchesOnlyMem(t *testing.T) {
	re := ours("claude")
	for cmd, want := range map[string]bool{
		"/usr/local/bin/mem hook claude": true, "mem hook claude": true, "'/a b/mem' hook claude": true,
		"C:\\mem.exe hook claude": true, "memx hook claude": false, "/bin/mem hook codex": false, "echo mem hook claude-ish": false,
	} {
		if re.MatchString(cmd) != want {
			t.Errorf("%q: got %v", cmd, !want)
		}
	}
}

func TestNotAnObject(t *testing.T) {
	if _, err := Install("claude", "s.json", []byte(`[1]`), "mem"); err == nil {
		t.Error("an array is not a settings file")
	}
	if _, err := Install("claude", "s.json", []byte(`{"hooks": 3}`), "mem"); err == nil {
		t.Error(`"hooks": 3 must be refused`)
	}
}
