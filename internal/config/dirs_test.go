package config

import (
	"path/filepath"
	"testing"
)

// Each OS's folders, computed on any OS from the variables it would have.
func TestDirsFor(t *testing.T) {
	j := filepath.Join
	none := func(string) bool { return false }
	for _, c := range []struct {
		name   string
		goos   string
		env    map[string]string
		exists func(string) bool
		want   Dirs
	}{
		{"linux", "linux", map[string]string{"HOME": "/home/a"}, none,
			Dirs{Data: "/home/a/.local/share/mem", State: "/home/a/.local/state/mem", Config: "/home/a/.config/mem"}},
		{"linux xdg", "linux", map[string]string{"HOME": "/home/a", "XDG_DATA_HOME": "/d", "XDG_STATE_HOME": "/s", "XDG_CONFIG_HOME": "/c"}, none,
			Dirs{Data: "/d/mem", State: "/s/mem", Config: "/c/mem"}},
		{"linux relative xdg is ignored", "linux", map[string]string{"HOME": "/home/a", "XDG_DATA_HOME": "rel"}, none,
			Dirs{Data: "/home/a/.local/share/mem", State: "/home/a/.local/state/mem", Config: "/home/a/.config/mem"}},
		{"freebsd", "freebsd", map[string]string{"HOME": "/home/a"}, none,
			Dirs{Data: "/home/a/.local/share/mem", State: "/home/a/.local/state/mem", Config: "/home/a/.config/mem"}},
		{"darwin", "darwin", map[string]string{"HOME": "/Users/a"}, none,
			Dirs{Data: "/Users/a/Library/Application Support/mem", State: "/Users/a/Library/Logs/mem", Config: "/Users/a/Library/Application Support/mem"}},
		{"darwin xdg", "darwin", map[string]string{"HOME": "/Users/a", "XDG_CONFIG_HOME": "/Users/a/dots"}, none,
			Dirs{Data: "/Users/a/Library/Application Support/mem", State: "/Users/a/Library/Logs/mem", Config: "/Users/a/dots/mem"}},
		{"darwin keeps an earlier mem's data folder", "darwin", map[string]string{"HOME": "/Users/a"},
			func(d string) bool { return d == "/Users/a/.local/share/mem" },
			Dirs{Data: "/Users/a/.local/share/mem", State: "/Users/a/Library/Logs/mem", Config: "/Users/a/Library/Application Support/mem"}},
		{"windows", "windows", map[string]string{"USERPROFILE": `C:\Users\a`, "HOME": "/c/Users/a",
			"LOCALAPPDATA": `C:\Users\a\AppData\Local`, "APPDATA": `C:\Users\a\AppData\Roaming`}, none,
			Dirs{Data: j(`C:\Users\a\AppData\Local`, "mem"), State: j(`C:\Users\a\AppData\Local`, "mem", "logs"), Config: j(`C:\Users\a\AppData\Roaming`, "mem")}},
		{"windows xdg", "windows", map[string]string{"USERPROFILE": `C:\Users\a`, "XDG_DATA_HOME": `D:\data`, "XDG_CONFIG_HOME": "/c/Users/a/.config"}, none,
			Dirs{Data: j(`D:\data`, "mem"), State: j(`C:\Users\a`, "AppData", "Local", "mem", "logs"), Config: j(`C:\Users\a`, "AppData", "Roaming", "mem")}},
		{"windows without the AppData variables", "windows", map[string]string{"USERPROFILE": `C:\Users\a`}, none,
			Dirs{Data: j(`C:\Users\a`, "AppData", "Local", "mem"), State: j(`C:\Users\a`, "AppData", "Local", "mem", "logs"), Config: j(`C:\Users\a`, "AppData", "Roaming", "mem")}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := DirsFor(c.goos, func(k string) string { return c.env[k] }, c.exists)
			if got != c.want {
				t.Errorf("DirsFor(%s) = %+v, want %+v", c.goos, got, c.want)
			}
		})
	}
}

func TestHomeFor(t *testing.T) {
	env := map[string]string{"HOME": "/c/Users/a", "USERPROFILE": `C:\Users\a`}
	getenv := func(k string) string { return env[k] }
	if h := HomeFor("windows", getenv); h != `C:\Users\a` {
		t.Errorf("windows home %q, want USERPROFILE", h)
	}
	if h := HomeFor("darwin", getenv); h != "/c/Users/a" {
		t.Errorf("darwin home %q, want HOME", h)
	}
}
