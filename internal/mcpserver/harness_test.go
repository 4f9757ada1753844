package mcpserver

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/memhq/mem/internal/store"
)

// memBin is the mem binary built for the subprocess tests.
var memBin string

// TestMain builds the real mem command once, so that tests can run the server
// as an editor does: a separate process spoken to over stdin/stdout.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "mem-mcp-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	memBin = filepath.Join(dir, "mem")
	build := exec.Command("go", "build", "-o", dir, "github.com/memhq/mem/cmd/mem", "github.com/memhq/mem/cmd/mem-full") // mem hands mcp to mem-full
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building mem:", err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// fixture is a seeded database and a client connected to a server over it.
type fixture struct {
	db   *store.DB
	cs   *mcp.ClientSession
	root string // the server's project root
	cmd  *exec.Cmd
}

// starter starts a server saving into session (its own when empty).
type starter func(t *testing.T, session string) *fixture

// eachMode runs a test against the server in-process and as a subprocess.
func eachMode(t *testing.T, test func(*testing.T, starter)) {
	t.Run("in-process", func(t *testing.T) { test(t, startInProcess) })
	t.Run("subprocess", func(t *testing.T) { test(t, startSubprocess) })
}

func startInProcess(t *testing.T, session string) *fixture {
	db, _ := openDB(t)
	seed(t, db)
	return &fixture{db: db, cs: connect(t, newServer(t, db, session)), root: "/repo"}
}

// startSubprocess runs `mem mcp` on a seeded database through the SDK's
// command transport.
func startSubprocess(t *testing.T, session string) *fixture {
	db, path := openDB(t)
	seed(t, db)
	root := t.TempDir()
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	cmd := exec.Command(memBin, "mcp")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "HOME="+root, "XDG_CONFIG_HOME="+root+"/.config", "MEM_DB="+path,
		"MEM_PROJECT="+testProject, "MEM_SESSION="+session)
	cmd.Stderr = testWriter{t}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).
		Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return &fixture{db: db, cs: cs, root: root, cmd: cmd}
}

// testWriter sends a subprocess's stderr to the test log.
type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Logf("mem mcp: %s", p)
	return len(p), nil
}
