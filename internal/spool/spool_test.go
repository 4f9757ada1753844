package spool

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestRecordsComeBackInArrivalOrder(t *testing.T) {
	d := Beside(filepath.Join(t.TempDir(), "mem.db"))
	if got, err := d.List(); err != nil || len(got) != 0 {
		t.Fatalf("a spool never written: %v, %v", got, err)
	}
	base := time.Unix(1_700_000_000, 0)
	// Written out of order; 9 s and 10 s must not sort as text would.
	var want []string
	for _, sec := range []int{10, 9, 100, 1} {
		id := NewID(base.Add(time.Duration(sec) * time.Second))
		if err := d.Put(id, []byte(id)); err != nil {
			t.Fatal(err)
		}
		want = append(want, id)
	}
	slices.Sort(want)
	// A write killed half-way leaves a temporary file: never a record.
	if err := os.WriteFile(filepath.Join(d.Path(), "."+NewID(base)+".json.123"), []byte("{"), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := d.List()
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, e := range got {
		ids = append(ids, e.ID)
		b, err := d.Read(e)
		if err != nil || string(b) != e.ID {
			t.Fatalf("record %s reads %q, %v", e.ID, b, err)
		}
	}
	if !slices.Equal(ids, want) {
		t.Fatalf("order %v, want %v", ids, want)
	}
	if err := d.putAside(got[0]); err != nil {
		t.Fatal(err)
	}
	if err := d.remove(got[1]); err != nil {
		t.Fatal(err)
	}
	if err := d.remove(got[1]); err != nil {
		t.Fatalf("removing twice: %v", err)
	}
	if waiting, failed, err := d.Len(); waiting != 2 || failed != 1 || err != nil {
		t.Fatalf("Len: %d waiting, %d set aside, %v; want 2, 1", waiting, failed, err)
	}
	if fi, err := os.Stat(d.Path()); err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("spool folder: %v, %v; want private", fi.Mode(), err)
	}
}

func TestSpoolRefusesALink(t *testing.T) {
	dir := t.TempDir()
	d := Beside(filepath.Join(dir, "mem.db"))
	if err := os.Symlink(t.TempDir(), d.Path()); err != nil {
		t.Fatal(err)
	}
	if err := d.Put(NewID(time.Now()), []byte("x")); err == nil {
		t.Fatal("wrote through a link")
	}
}

func TestOneDrainerAtATime(t *testing.T) {
	d := Beside(filepath.Join(t.TempDir(), "mem.db"))
	release, ok := d.TryLock()
	if !ok {
		t.Fatal("first lock refused")
	}
	if _, ok := d.TryLock(); ok {
		t.Fatal("second lock taken while the first is held")
	}
	release()
	release, ok = d.TryLock()
	if !ok {
		t.Fatal("lock refused after release")
	}
	release()
	if got, _ := d.List(); len(got) != 0 {
		t.Fatalf("the lock file is listed as a record: %v", got)
	}
}

func TestPurgeRemovesMatchingRecordsWaitingOrSetAside(t *testing.T) {
	d := Beside(filepath.Join(t.TempDir(), "mem.db"))
	at := time.Unix(1_700_000_000, 0)
	put := func(body string) Entry {
		t.Helper()
		id := NewID(at)
		if err := d.Put(id, []byte(body)); err != nil {
			t.Fatal(err)
		}
		return Entry{ID: id, path: filepath.Join(d.Path(), id+ext)}
	}
	put("forget me: waiting")
	if err := d.putAside(put("forget me: set aside")); err != nil {
		t.Fatal(err)
	}
	put("keep me: waiting")
	if err := d.putAside(put("keep me: set aside")); err != nil {
		t.Fatal(err)
	}
	temp := filepath.Join(d.Path(), "."+NewID(at)+".json.123")
	if err := os.WriteFile(temp, []byte("forget me: a write under way"), 0o600); err != nil {
		t.Fatal(err)
	}
	n, err := d.shred(func(b []byte) bool { return strings.HasPrefix(string(b), "forget me") })
	if err != nil || n != 3 {
		t.Fatalf("Purge: %d, %v; want 3", n, err)
	}
	waiting, failed, err := d.Len()
	if err != nil || waiting != 1 || failed != 1 {
		t.Errorf("left %d waiting and %d set aside (%v), want 1 and 1", waiting, failed, err)
	}
	names, _ := d.names()
	for _, name := range names {
		b, _ := os.ReadFile(filepath.Join(d.Path(), name))
		if strings.HasPrefix(string(b), "forget me") {
			t.Errorf("%s still holds %q", name, b)
		}
	}
	if _, err := os.Lstat(temp); err == nil {
		t.Errorf("the record being written (%s) was left to be renamed into the queue", temp)
	}
}

// TestPurgeWaitsForARecordBeingWritten: a record created but not written yet
// when Purge starts is waited for, and purged whether its write lands while
// it is a temporary file or after it is renamed into the queue.
func TestPurgeWaitsForARecordBeingWritten(t *testing.T) {
	d := Beside(filepath.Join(t.TempDir(), "mem.db"))
	if err := d.ensure(); err != nil {
		t.Fatal(err)
	}
	id := NewID(time.Now())
	f, err := os.CreateTemp(d.Path(), "."+id+ext+".*")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { // the rest of a Put
		_, err := f.Write([]byte("forget me"))
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			err = os.Rename(f.Name(), filepath.Join(d.Path(), id+ext))
		}
		done <- err
	}()
	n, err := d.shred(func(b []byte) bool { return string(b) == "forget me" })
	putErr := <-done
	if err != nil || n != 1 {
		t.Fatalf("Purge: %d, %v; want 1 (the Put: %v)", n, err, putErr)
	}
	if names, _ := d.names(); len(names) != 0 {
		t.Fatalf("left %v", names)
	}
}

func TestHeldRecordStaysOutOfTheQueueUntilLetGo(t *testing.T) {
	d := Beside(filepath.Join(t.TempDir(), "mem.db"))
	base := time.Unix(1_700_000_000, 0)
	first, second, third := NewID(base), NewID(base.Add(time.Second)), NewID(base.Add(2*time.Second))
	h1, err := d.Hold(first, []byte("one"))
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Put(second, []byte("two")); err != nil {
		t.Fatal(err)
	}
	h3, err := d.Hold(third, []byte("three"))
	if err != nil {
		t.Fatal(err)
	}
	if n, _, _ := d.Len(); n != 1 {
		t.Fatalf("%d waiting while two are held, want 1 (the one Put)", n)
	}
	if err := h3.Done(); err != nil {
		t.Fatal(err)
	}
	if err := h3.Queue(); err != nil { // after Done: nothing left to queue
		t.Fatal(err)
	}
	if err := h1.Queue(); err != nil {
		t.Fatal(err)
	}
	if err := h1.Done(); err != nil { // after Queue: it stays queued
		t.Fatal(err)
	}
	got, err := d.List()
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, e := range got {
		ids = append(ids, e.ID)
	}
	if !slices.Equal(ids, []string{first, second}) {
		t.Fatalf("queue %v, want %v", ids, []string{first, second})
	}
	if b, err := d.Read(got[0]); err != nil || string(b) != "one" {
		t.Fatalf("queued held record reads %q, %v", b, err)
	}
}

// A process killed while it holds a record (the editor's kill at its
// timeout) leaves it to the queue, in its arrival order.
func TestHeldRecordOfAKilledProcessIsQueued(t *testing.T) {
	if os.Getenv("SPOOL_HOLD_DB") != "" {
		d := Beside(os.Getenv("SPOOL_HOLD_DB"))
		if _, err := d.Hold(os.Getenv("SPOOL_HOLD_ID"), []byte("held")); err != nil {
			os.Stdout.WriteString(err.Error() + "\n")
			os.Exit(1)
		}
		os.Stdout.WriteString("held\n")
		time.Sleep(time.Minute)
		os.Exit(0)
	}
	db := filepath.Join(t.TempDir(), "mem.db")
	d := Beside(db)
	base := time.Unix(1_700_000_000, 0)
	held, later := NewID(base), NewID(base.Add(time.Second))
	cmd := exec.Command(os.Args[0], "-test.run", "^TestHeldRecordOfAKilledProcessIsQueued$")
	cmd.Env = append(os.Environ(), "SPOOL_HOLD_DB="+db, "SPOOL_HOLD_ID="+held)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	line, _ := bufio.NewReader(out).ReadString('\n')
	if line != "held\n" {
		t.Fatalf("child said %q", line)
	}
	if err := d.Put(later, []byte("later")); err != nil {
		t.Fatal(err)
	}
	if n, _, _ := d.Len(); n != 1 {
		t.Fatalf("%d waiting while a live process holds one, want 1", n)
	}
	cmd.Process.Kill()
	cmd.Wait()
	got, err := d.List()
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].ID != held || got[1].ID != later {
		t.Fatalf("after the kill the queue is %v, want %s then %s", got, held, later)
	}
	if b, err := d.Read(got[0]); err != nil || string(b) != "held" {
		t.Fatalf("the killed process's record reads %q, %v", b, err)
	}
}

// A process killed between writing its held record and naming it leaves a
// temporary file: the record in it is queued, not lost.
func TestHeldTemporaryFileOfAnEndedProcessIsQueued(t *testing.T) {
	d := Beside(filepath.Join(t.TempDir(), "mem.db"))
	if _, err := d.Hold(NewID(time.Now()), []byte("{}")); err != nil { // creates the folders
		t.Fatal(err)
	}
	id := NewID(time.Unix(1_700_000_000, 0))
	live := filepath.Join(d.Path(), "live")
	if err := os.WriteFile(filepath.Join(live, "."+id+".json.123"), []byte(`{"v":1}`), 0o600); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(live, "."+NewID(time.Now())+".json.456")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := d.List()
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].ID != id {
		t.Fatalf("queue %v, want the record of the temporary file, %s", got, id)
	}
	if _, err := os.Stat(empty); err != nil {
		t.Fatalf("an empty temporary file (a Hold not yet locked) must stay: %v", err)
	}
}

// TestSpoolOfADatabaseNotYetCreated: a hook's first event on a new machine
// arrives before the database's folder exists; holding or putting it makes
// the folders, private to the user.
func TestSpoolOfADatabaseNotYetCreated(t *testing.T) {
	data := filepath.Join(t.TempDir(), "share", "mem")
	d := Beside(filepath.Join(data, "mem.db"))
	h, err := d.Hold(NewID(time.Now()), []byte("first"))
	if err != nil {
		t.Fatalf("holding the first event of a new machine: %v", err)
	}
	if err := h.Queue(); err != nil {
		t.Fatal(err)
	}
	if n, _, _ := d.Len(); n != 1 {
		t.Fatalf("%d waiting, want 1", n)
	}
	if fi, err := os.Stat(data); err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("the data folder: %v %v, want 0700", fi.Mode().Perm(), err)
	}
}

// Waiting lists what is not applied yet, held records too, in arrival
// order, and moves no file: what a command that only reads shows.
func TestWaitingListsHeldAndQueuedRecordsAndMovesNothing(t *testing.T) {
	d := Beside(filepath.Join(t.TempDir(), "mem.db"))
	base := time.Unix(1_700_000_000, 0)
	first, second, third := NewID(base), NewID(base.Add(time.Second)), NewID(base.Add(2*time.Second))
	h, err := d.Hold(second, []byte("two"))
	if err != nil {
		t.Fatal(err)
	}
	defer h.Done()
	for _, id := range []string{third, first} {
		if err := d.Put(id, []byte(id)); err != nil {
			t.Fatal(err)
		}
	}
	set, err := d.List()
	if err != nil {
		t.Fatal(err)
	}
	if err := d.putAside(set[1]); err != nil { // third: set aside, no longer waiting
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(d.Path(), "."+NewID(base)+".json.123"), []byte("{"), 0o600); err != nil {
		t.Fatal(err)
	}
	files := func() []string {
		var all []string
		filepath.WalkDir(d.Path(), func(p string, _ os.DirEntry, _ error) error { all = append(all, p); return nil })
		return all
	}
	before := files()
	got, err := d.Waiting()
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, e := range got {
		ids = append(ids, e.ID)
	}
	if want := []string{first, second}; !slices.Equal(ids, want) {
		t.Errorf("waiting %v, want %v", ids, want)
	}
	if b, err := d.Read(got[1]); err != nil || string(b) != "two" {
		t.Errorf("the held record reads %q, %v", b, err)
	}
	if after := files(); !slices.Equal(before, after) {
		t.Errorf("files changed: %v, then %v", before, after)
	}
}
