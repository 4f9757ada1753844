package fullcli

import (
	"bytes"
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/memhq/mem/internal/cli"
)

// The default address falls back to a free port when it is taken, and says
// so; an address that was asked for is served or refused.
func TestWebListenFallsBackOnlyForTheDefault(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	addr := busy.Addr().String()

	var said bytes.Buffer
	l, err := listen(addr, true, &said)
	if err != nil {
		t.Fatalf("the default address taken: %v", err)
	}
	defer l.Close()
	if l.Addr().String() == addr || !strings.HasPrefix(l.Addr().String(), "127.0.0.1:") {
		t.Errorf("fell back to %s", l.Addr())
	}
	if !strings.Contains(said.String(), addr+" is taken") || !strings.Contains(said.String(), l.Addr().String()) {
		t.Errorf("the fallback said %q", said.String())
	}
	said.Reset()
	if l, err := listen(addr, false, &said); err == nil {
		l.Close()
		t.Errorf("an address asked for that is taken was not refused")
	}
	if said.Len() != 0 {
		t.Errorf("a refusal said %q", said.String())
	}
}

// webRun runs mem web with args until it printed its URL, then stops it,
// returning the URL, what it wrote to stderr and its exit code.
func webRun(t *testing.T, env map[string]string, args ...string) (url, stderr string, code int) {
	t.Helper()
	var out, errb lockedBuffer
	app := cli.NewApp(strings.NewReader(""), &out, &errb)
	app.Getenv = func(k string) string { return env[k] }
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan int, 1)
	go func() { done <- Main(ctx, app, append([]string{"web", "--no-open"}, args...)) }()
	for deadline := time.Now().Add(30 * time.Second); !strings.Contains(out.String(), "\n"); {
		select {
		case code := <-done:
			return out.String(), errb.String(), code
		case <-time.After(10 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("mem web printed no URL in 30 s: %s", errb.String())
		}
	}
	cancel()
	code = <-done
	return strings.TrimSpace(strings.TrimPrefix(out.String(), "mem web: ")), errb.String(), code
}

func tokenOf(t *testing.T, url string) string {
	t.Helper()
	_, tok, ok := strings.Cut(url, "token=")
	if !ok || len(tok) != 64 {
		t.Fatalf("no token in %q", url)
	}
	return tok
}

// The token survives a restart, kept in a 0600 file, until --new-token.
func TestWebTokenSurvivesRestartsUntilRenewed(t *testing.T) {
	dir := t.TempDir()
	env := map[string]string{"HOME": dir, "MEM_DB": filepath.Join(dir, "mem.db"), "MEM_PROJECT": "p",
		"XDG_STATE_HOME": filepath.Join(dir, "state")}
	file := filepath.Join(dir, "state", "mem", "web.token")

	url1, errs, code := webRun(t, env, "--addr", "127.0.0.1:0")
	if code != 0 {
		t.Fatalf("mem web exited %d: %s", code, errs)
	}
	first := tokenOf(t, url1)
	if !strings.Contains(errs, "a new token (there was none); kept in "+file) {
		t.Errorf("the first run said %q", errs)
	}
	fi, err := os.Stat(file)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("the token file is %o, want 600", fi.Mode().Perm())
	}
	if b, _ := os.ReadFile(file); strings.TrimSpace(string(b)) != first {
		t.Errorf("the file holds %q, the URL %q", b, first)
	}

	url2, errs, _ := webRun(t, env, "--addr", "127.0.0.1:0")
	if tokenOf(t, url2) != first {
		t.Errorf("a restart changed the token")
	}
	if strings.Contains(errs, "token") {
		t.Errorf("a restart with the kept token said %q", errs)
	}

	url3, errs, _ := webRun(t, env, "--addr", "127.0.0.1:0", "--new-token")
	if tokenOf(t, url3) == first {
		t.Errorf("--new-token kept the token")
	}
	if !strings.Contains(errs, "--new-token") {
		t.Errorf("--new-token said %q", errs)
	}
	url4, _, _ := webRun(t, env, "--addr", "127.0.0.1:0")
	if tokenOf(t, url4) != tokenOf(t, url3) {
		t.Errorf("the renewed token did not survive a restart")
	}
}

// [web] addr is where mem web listens; taken, it is refused with the
// setting named (exit 2), since it was asked for.
func TestWebAddrSetting(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := busy.Addr().String()
	dir := t.TempDir()
	env := map[string]string{"HOME": dir, "MEM_DB": filepath.Join(dir, "mem.db"), "MEM_PROJECT": "p", "MEM_WEB_ADDR": addr}
	_, errs, code := webRun(t, env)
	if code != 2 || !strings.Contains(errs, "web.addr (env MEM_WEB_ADDR)") {
		t.Errorf("a taken [web] addr: exit %d, %q", code, errs)
	}
	busy.Close()
	url, errs, code := webRun(t, env)
	if code != 0 || !strings.HasPrefix(url, "http://"+addr+"/?token=") {
		t.Errorf("[web] addr %s: exit %d, URL %q, %s", addr, code, url, errs)
	}
	env["MEM_WEB_ADDR"] = "192.0.2.1:80"
	if _, errs, code := webRun(t, env); code != 2 || !strings.Contains(errs, "web.addr") || !strings.Contains(errs, "loopback") {
		t.Errorf("a remote [web] addr: exit %d, %q", code, errs)
	}
}
