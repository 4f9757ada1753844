package team

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/memhq/mem/internal/memory"
	"github.com/memhq/mem/internal/text"
)

// Errors a sync reports.
var (
	// ErrAuth: the cluster refused the user name or password.
	ErrAuth = errors.New("the cluster refused the user name or password")
	// ErrUnreachable: no node answered before the deadline.
	ErrUnreachable = errors.New("no node of the cluster answered")
	// ErrNotConfigured: no cluster address is set.
	ErrNotConfigured = errors.New("no cluster is set: mem remote set URL[,URL...]")
	// ErrNewerSchema: the cluster was migrated by a newer mem.
	ErrNewerSchema = errors.New("the cluster's schema is newer than this mem knows")
)

// Remote is how to reach a cluster.
type Remote struct {
	URLs     []string // every node's HTTP address; a client fails over in turn
	User     string
	Password string
	CAFile   string        // PEM file of the CA that signed the nodes' certificates (https)
	Timeout  time.Duration // one request
}

// client speaks rqlite's HTTP API to the nodes of a cluster. rqlite
// forwards a request a follower gets to the leader, so any live node will
// do; a node that does not answer, or answers that it has no leader, is
// left for the next one.
type client struct {
	r    Remote
	http *http.Client
	mu   sync.Mutex
	next int // the node tried first
}

func newClient(r Remote) (*client, error) {
	if len(r.URLs) == 0 {
		return nil, ErrNotConfigured
	}
	if r.Timeout <= 0 {
		r.Timeout = 10 * time.Second
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = 4
	tr.Proxy = proxy
	if r.CAFile != "" {
		pem, err := os.ReadFile(r.CAFile)
		if err != nil {
			return nil, fmt.Errorf("reading the cluster's CA file: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, memory.Invalid("sync.ca_file", "a PEM file of certificates", r.CAFile)
		}
		tr.TLSClientConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	}
	c := &client{r: r}
	c.http = &http.Client{Transport: tr, Timeout: r.Timeout, CheckRedirect: c.redirect}
	return c, nil
}

// proxy is the environment's proxy (HTTPS_PROXY, NO_PROXY) for a node
// reached over https, which only relays the encrypted stream, and none for
// plain http: the proxy would read the password.
func proxy(req *http.Request) (*url.URL, error) {
	if req.URL.Scheme != "https" {
		return nil, nil
	}
	return http.ProxyFromEnvironment(req)
}

// errRedirect: a node sent the request elsewhere.
var errRedirect = errors.New("not followed: mem sends its requests, and the password, to the nodes of sync.url only")

// redirect follows a redirect only to the origin the request went to or to
// another node of the cluster: the request carries the password, and Go
// would send it along to another port of the same host.
func (c *client) redirect(req *http.Request, via []*http.Request) error {
	to := origin(req.URL)
	if len(via) >= 5 {
		return fmt.Errorf("%d redirects, the last to %s: %w", len(via), to, errRedirect)
	}
	if to == origin(via[0].URL) {
		return nil
	}
	for _, n := range c.r.URLs {
		if u, err := url.Parse(n); err == nil && origin(u) == to {
			return nil
		}
	}
	return fmt.Errorf("redirected to %s: %w", to, errRedirect)
}

// origin is a URL's scheme and host (with its port), nothing of its user.
func origin(u *url.URL) string {
	return strings.ToLower(u.Scheme) + "://" + strings.ToLower(u.Host)
}

// result is one statement's answer.
type result struct {
	Columns      []string `json:"columns"`
	Values       [][]any  `json:"values"`
	RowsAffected int64    `json:"rows_affected"`
	Error        string   `json:"error"`
}

type response struct {
	Results []result `json:"results"`
	Error   string   `json:"error"`
}

// stmt is a statement and its arguments.
type stmt []any

func st(q string, args ...any) stmt { return append(stmt{q}, args...) }

// answerLimit bounds an answer mem reads whole, but for a page of a pull
// (pageAnswer): a node that sends more is refused before it is all read.
const answerLimit = 8 << 20

// execute runs statements, in one transaction when tx is set: then either
// all of them took effect or none did. Every statement mem sends is
// idempotent, so one whose answer was lost is sent again.
func (c *client) execute(ctx context.Context, tx bool, stmts []stmt) ([]result, error) {
	path := "/db/execute"
	if tx {
		path += "?transaction"
	}
	return c.do(ctx, path, answerLimit, stmts)
}

// query runs read statements at linearizable consistency: the answer
// includes every write the cluster acknowledged before it.
func (c *client) query(ctx context.Context, stmts []stmt) ([]result, error) {
	return c.queryLimit(ctx, answerLimit, stmts)
}

// queryLimit is query for an answer of up to limit bytes.
func (c *client) queryLimit(ctx context.Context, limit int64, stmts []stmt) ([]result, error) {
	return c.do(ctx, "/db/query?level=linearizable", limit, stmts)
}

func (c *client) do(ctx context.Context, path string, limit int64, stmts []stmt) ([]result, error) {
	body, err := json.Marshal(stmts)
	if err != nil {
		return nil, err
	}
	var lastErr error
	for attempt := 0; ; attempt++ {
		c.mu.Lock()
		i := c.next
		c.mu.Unlock()
		node := c.r.URLs[i%len(c.r.URLs)]
		res, retry, err := c.send(ctx, node, path, limit, body)
		if err == nil {
			return res, nil
		}
		if !retry {
			return nil, err
		}
		lastErr = err
		c.mu.Lock()
		if c.next == i {
			c.next = (i + 1) % len(c.r.URLs)
		}
		c.mu.Unlock()
		// After a round of every node, wait a little: an election takes
		// about a second.
		pause := time.Duration(0)
		if (attempt+1)%len(c.r.URLs) == 0 {
			pause = 100*time.Millisecond + time.Duration(rand.Int64N(int64(200*time.Millisecond)))
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("%w (last: %w): %w", ErrUnreachable, lastErr, ctx.Err())
		case <-time.After(pause):
		}
	}
}

// send makes one request to one node; retry says whether another node (or
// the same one later) may do better.
func (c *client) send(ctx context.Context, node, path string, limit int64, body []byte) ([]result, bool, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, node+path, bytes.NewReader(body))
	if err != nil {
		return nil, false, err
	}
	req.Header.Set("Content-Type", "application/json")
	if c.r.User != "" {
		req.SetBasicAuth(c.r.User, c.r.Password)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		// The address only: an error may quote the request.
		return nil, !errors.Is(err, errRedirect), fmt.Errorf("node %s: %w", node, unwrapURLError(err))
	}
	defer resp.Body.Close()
	if resp.ContentLength > limit {
		return nil, false, fmt.Errorf("node %s: an answer of %d bytes, more than the %d mem reads", node, resp.ContentLength, limit)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, true, fmt.Errorf("node %s: reading the answer: %w", node, err)
	}
	if int64(len(data)) > limit {
		return nil, false, fmt.Errorf("node %s: an answer of more than the %d bytes mem reads", node, limit)
	}
	switch {
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		who := c.r.User
		if who == "" {
			who = "(no user)"
		}
		return nil, false, fmt.Errorf("node %s as user %s: %w", node, who, ErrAuth)
	case resp.StatusCode >= 500 || resp.StatusCode == http.StatusTooManyRequests:
		return nil, true, fmt.Errorf("node %s: %s: %s", node, resp.Status, firstLine(data))
	case resp.StatusCode != http.StatusOK:
		return nil, false, fmt.Errorf("node %s: %s: %s", node, resp.Status, firstLine(data))
	}
	var r response
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&r); err != nil {
		return nil, false, fmt.Errorf("node %s: an answer that is not rqlite's: %w", node, err)
	}
	if r.Error != "" {
		// A node that lost its leader says so here; another may have one.
		return nil, transient(r.Error), fmt.Errorf("node %s: %s", node, r.Error)
	}
	for _, res := range r.Results {
		if res.Error != "" {
			return nil, transient(res.Error), fmt.Errorf("node %s: %s", node, res.Error)
		}
	}
	return r.Results, false, nil
}

// transient reports whether an error a node returned is about the cluster
// (no leader yet, the leader unreachable while the node forwards to it)
// rather than about the statement, so that trying again may succeed.
func transient(msg string) bool {
	msg = strings.ToLower(msg)
	for _, s := range []string{"leader", "dial tcp", "connection", "timeout", "timed out", "eof", "unavailable",
		"shutdown", "not open", "raft", "forward"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

func unwrapURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

func firstLine(b []byte) string { return text.CutWord(text.FirstLine(string(b)), 200) }

// Column readers for query results (numbers arrive as json.Number).

func asInt(v any) int64 {
	switch x := v.(type) {
	case json.Number:
		n, _ := x.Int64()
		return n
	case float64:
		return int64(x)
	}
	return 0
}

func asString(v any) string {
	s, _ := v.(string)
	return s
}

// NodeStatus is what one node of the cluster says of itself.
type NodeStatus struct {
	URL    string `json:"url"`
	Up     bool   `json:"up"`               // it answered
	State  string `json:"state,omitempty"`  // leader, follower, candidate
	Leader string `json:"leader,omitempty"` // the leader's node id, as this node knows it
	ID     string `json:"id,omitempty"`     // its own node id
	// Problem says why a node is not up, or that it knows no leader.
	Problem string `json:"problem,omitempty"`
}

// statusLimit bounds the answer of a node's /status read.
const statusLimit = 1 << 20

// nodes asks every node at once for its status (rqlite's /status), each
// within wait, and returns them in the order of the addresses.
func (c *client) nodes(ctx context.Context, wait time.Duration) []NodeStatus {
	out := make([]NodeStatus, len(c.r.URLs))
	var wg sync.WaitGroup
	for i, node := range c.r.URLs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(ctx, wait)
			defer cancel()
			out[i] = c.nodeStatus(ctx, node)
		}()
	}
	wg.Wait()
	return out
}

func (c *client) nodeStatus(ctx context.Context, node string) NodeStatus {
	ns := NodeStatus{URL: node}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, node+"/status", nil)
	if err != nil {
		ns.Problem = err.Error()
		return ns
	}
	if c.r.User != "" {
		req.SetBasicAuth(c.r.User, c.r.Password)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		ns.Problem = unwrapURLError(err).Error()
		return ns
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, statusLimit))
	if err != nil {
		ns.Problem = "reading its answer: " + err.Error()
		return ns
	}
	if resp.StatusCode != http.StatusOK {
		ns.Problem = resp.Status
		if resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden {
			ns.Problem += ": " + ErrAuth.Error()
		}
		return ns
	}
	var st struct {
		Store struct {
			NodeID string `json:"node_id"`
			Raft   struct {
				State string `json:"state"`
			} `json:"raft"`
			Leader struct {
				NodeID string `json:"node_id"`
			} `json:"leader"`
		} `json:"store"`
	}
	if err := json.Unmarshal(data, &st); err != nil {
		ns.Problem = "an answer that is not rqlite's status"
		return ns
	}
	ns.Up = true
	ns.ID, ns.State, ns.Leader = st.Store.NodeID, strings.ToLower(st.Store.Raft.State), st.Store.Leader.NodeID
	if ns.Leader == "" {
		ns.Problem = "knows no leader"
	}
	return ns
}
