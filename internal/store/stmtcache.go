package store

import (
	"container/list"
	"context"
	"database/sql/driver"
	"errors"
)

// stmtCacheSize is how many compiled statements a connection keeps. A hook
// runs about twenty distinct statements; a long-lived process (mem mcp, the
// viewer) a few dozen more.
const stmtCacheSize = 128

// cacheStatements opens connections that compile each statement once and
// run it again from the compiled form. database/sql asks the driver to
// compile every statement it runs and drops the result straight after, so
// a hook that records ten entries compiled the same insert ten times. A
// long-lived process gains most (the code benchmark's replay took 0.76 of
// the time); a hook little, since most of its statements run once.
type cacheStatements struct{ driver.Connector }

func (k cacheStatements) Connect(ctx context.Context) (driver.Conn, error) {
	c, err := k.Connector.Connect(ctx)
	if err != nil {
		return nil, err
	}
	inner, ok := c.(cachedConnInner)
	if !ok {
		return c, nil
	}
	return &cachingConn{inner: inner, byText: map[string]*list.Element{}, lru: list.New()}, nil
}

// cachedConnInner is what a connection must do to be wrapped.
type cachedConnInner interface {
	driver.Conn
	driver.ConnPrepareContext
	driver.ConnBeginTx
}

// cachingConn hands out compiled statements from its cache. It has no
// QueryContext or ExecContext on purpose: without them database/sql prepares
// every statement through PrepareContext and closes it after use, and the
// close puts it back.
type cachingConn struct {
	inner  cachedConnInner
	byText map[string]*list.Element // of *cachedStmt
	lru    *list.List               // most recently used first
}

// cachedStmt is a compiled statement lent out by its connection; busy while
// lent, so a statement run again before the first run's rows are closed gets
// a compilation of its own.
type cachedStmt struct {
	driver.Stmt
	c       *cachingConn
	query   string
	busy    bool
	evicted bool // out of the cache: closed for good when given back
}

func (c *cachingConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	if el, ok := c.byText[query]; ok {
		s := el.Value.(*cachedStmt)
		if !s.busy {
			s.busy = true
			c.lru.MoveToFront(el)
			return s, nil
		}
		// In use: compiled again, and closed after this use.
		inner, err := c.inner.PrepareContext(ctx, query)
		if err != nil {
			return nil, err
		}
		return &cachedStmt{Stmt: inner, c: c, query: query, busy: true, evicted: true}, nil
	}
	inner, err := c.inner.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	s := &cachedStmt{Stmt: inner, c: c, query: query, busy: true}
	c.byText[query] = c.lru.PushFront(s)
	if c.lru.Len() > stmtCacheSize {
		old := c.lru.Back().Value.(*cachedStmt)
		c.evict(old)
		if !old.busy {
			_ = old.Stmt.Close()
		}
	}
	return s, nil
}

func (c *cachingConn) evict(s *cachedStmt) {
	if el, ok := c.byText[s.query]; ok && el.Value == s {
		c.lru.Remove(el)
		delete(c.byText, s.query)
	}
	s.evicted = true
}

// Close gives the statement back to its connection; one out of the cache is
// closed.
func (s *cachedStmt) Close() error {
	s.busy = false
	if s.evicted {
		return s.Stmt.Close()
	}
	return nil
}

func (s *cachedStmt) ExecContext(ctx context.Context, args []driver.NamedValue) (r driver.Result, err error) {
	if x, ok := s.Stmt.(driver.StmtExecContext); ok {
		r, err = x.ExecContext(ctx, args)
	} else {
		r, err = s.Stmt.Exec(values(args))
	}
	s.dropIfStale(err)
	return r, err
}

func (s *cachedStmt) QueryContext(ctx context.Context, args []driver.NamedValue) (r driver.Rows, err error) {
	if x, ok := s.Stmt.(driver.StmtQueryContext); ok {
		r, err = x.QueryContext(ctx, args)
	} else {
		r, err = s.Stmt.Query(values(args))
	}
	s.dropIfStale(err)
	return r, err
}

func values(args []driver.NamedValue) []driver.Value {
	v := make([]driver.Value, len(args))
	for i, a := range args {
		v[i] = a.Value
	}
	return v
}

// dropIfStale takes a statement that failed out of the cache, so a failure
// that left it in a bad state is not met again on the next run.
func (s *cachedStmt) dropIfStale(err error) {
	if err != nil && !s.evicted {
		s.c.evict(s)
	}
}

func (c *cachingConn) Prepare(query string) (driver.Stmt, error) {
	return c.PrepareContext(context.Background(), query)
}

func (c *cachingConn) Begin() (driver.Tx, error) {
	return c.BeginTx(context.Background(), driver.TxOptions{})
}

func (c *cachingConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	return c.inner.BeginTx(ctx, opts)
}

func (c *cachingConn) Ping(ctx context.Context) error {
	if p, ok := c.inner.(driver.Pinger); ok {
		return p.Ping(ctx)
	}
	return nil
}

func (c *cachingConn) ResetSession(ctx context.Context) error {
	if r, ok := c.inner.(driver.SessionResetter); ok {
		return r.ResetSession(ctx)
	}
	return nil
}

func (c *cachingConn) IsValid() bool {
	if v, ok := c.inner.(driver.Validator); ok {
		return v.IsValid()
	}
	return true
}

// Close closes the cached statements, then the connection: SQLite keeps a
// connection with statements open.
func (c *cachingConn) Close() error {
	var errs []error
	for el := c.lru.Front(); el != nil; el = el.Next() {
		errs = append(errs, el.Value.(*cachedStmt).Stmt.Close())
	}
	c.lru.Init()
	clear(c.byText)
	errs = append(errs, c.inner.Close())
	return errors.Join(errs...)
}
