package memory

// FileEdits is what one session did to one file: how many of its
// observations changed the file, and whether one of them created it.
type FileEdits struct {
	Changes int
	Created bool
}
