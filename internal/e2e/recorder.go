package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"
)

// The recorder stands in for mem in the scratch HOME: a copy of the
// harness binary named mem. `mem hook ...` through it saves the event the
// CLI sent, the reply and the time the real mem took; anything else is
// handed to the real mem as is. It finds the real mem and its log through
// recorder.json beside it, since some CLIs pass hooks a filtered environment.

// RecorderConfig is recorder.json.
type RecorderConfig struct {
	Mem string `json:"mem"` // the real mem binary
	Log string `json:"log"` // JSON lines of HookCall
}

// HookCall is one recorded hook invocation.
type HookCall struct {
	Args    []string        `json:"args"`
	Event   json.RawMessage `json:"event"`
	Reply   string          `json:"reply"`
	Stderr  string          `json:"stderr,omitempty"`
	Start   time.Time       `json:"start"`
	Millis  float64         `json:"ms"`
	Exit    int             `json:"exit"`
	MemDB   string          `json:"mem_db,omitempty"`
	EnvSeen bool            `json:"env_seen"` // MEM_DB reached the hook
}

// IsRecorder reports whether the process was started as the recorder.
func IsRecorder() bool { return filepath.Base(os.Args[0]) == "mem" }

// Record runs the recorder and returns the exit code.
func Record(args []string) int {
	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintln(os.Stderr, "mem recorder:", err)
		return 1
	}
	var cfg RecorderConfig
	b, err := os.ReadFile(filepath.Join(filepath.Dir(exe), "recorder.json"))
	if err == nil {
		err = json.Unmarshal(b, &cfg)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "mem recorder: recorder.json:", err)
		return 1
	}
	if len(args) == 0 || args[0] != "hook" {
		err := syscall.Exec(cfg.Mem, append([]string{"mem"}, args...), os.Environ())
		fmt.Fprintln(os.Stderr, "mem recorder:", err)
		return 1
	}
	in, _ := readAllStdin()
	var out, errb bytes.Buffer
	cmd := exec.Command(cfg.Mem, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = bytes.NewReader(in), &out, &errb
	start := time.Now()
	err = cmd.Run()
	took := time.Since(start)
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		code = -1
	}
	os.Stdout.Write(out.Bytes())
	os.Stderr.Write(errb.Bytes())
	ev := json.RawMessage(in)
	if !json.Valid(in) {
		ev, _ = json.Marshal(string(in))
	}
	rec := HookCall{Args: args, Event: ev, Reply: out.String(), Stderr: errb.String(), Start: start,
		Millis: float64(took.Microseconds()) / 1000, Exit: code, MemDB: os.Getenv("MEM_DB"), EnvSeen: os.Getenv("MEM_DB") != ""}
	line, _ := json.Marshal(rec)
	if f, err := os.OpenFile(cfg.Log, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
		f.Write(append(line, '\n'))
		f.Close()
	}
	return code
}

func readAllStdin() ([]byte, error) {
	var b bytes.Buffer
	_, err := b.ReadFrom(os.Stdin)
	return b.Bytes(), err
}
