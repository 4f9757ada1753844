package memory

// FileHistory is a file's history as the context of a touched file reads
// it: the sessions that read or changed it, the one that created it and how
// much each changed it.
type FileHistory struct {
	// Sessions are the latest sessions whose observations read or changed
	// the file, newest first, each as its newest observation of the file
	// with its ID and SessionID only.
	Sessions []Observation
	// Creator is the session of the file's first current change when that
	// change created it (a title that starts with CreatedVerb); "" when
	// memory did not see it created.
	Creator string
	// Changes counts, for each of Sessions that changed the file, its
	// current observations that did.
	Changes map[string]int
}
