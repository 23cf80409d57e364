package localzdm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/zdm/terraform-provider-zdm/internal/localzdm/admin"
	"github.com/zdm/terraform-provider-zdm/internal/localzdm/faults"
	"github.com/zdm/terraform-provider-zdm/internal/localzdm/httpio"
	"github.com/zdm/terraform-provider-zdm/internal/localzdm/settings"
	"github.com/zdm/terraform-provider-zdm/internal/localzdm/store"
	"github.com/zdm/terraform-provider-zdm/internal/localzdm/webhook"
)

// Options configure a Server.
type Options struct {
	// StateFile, when set, keeps all state across restarts. New locks it
	// (a second server on the same file fails to start), loads it and
	// replays its journal; every change is appended to the journal before
	// the request that made it is answered, so a crash of the process loses
	// no answered change; the file itself is rewritten from time to time
	// and by Close.
	StateFile string
	// Sync, with StateFile, answers a request only once its change is
	// fsynced, so that an operating system crash or power loss loses no
	// answered change either. Without it the journal is fsynced every
	// second.
	Sync bool
	// Logger receives startup, persistence and webhook messages; nil discards them.
	Logger *log.Logger
	// LogRequests logs one line per API and admin request (never the API key).
	LogRequests bool
	// Choices select answers where the API specification is silent (see
	// Choices); Reset returns to them.
	Choices Choices
	// DeviceBehavior scripts how devices answer jobs and FOTA (see
	// DeviceBehavior); Reset returns to it.
	DeviceBehavior DeviceBehavior
}

// Server is the local ZDM server: the device management service (with the
// admin API) and the storage service, each on its own listener.
type Server struct {
	opts Options
	log  *log.Logger

	// st holds the model and the data points, and keeps them in the state
	// file; its Mu guards behavior too.
	st       *store.Store
	behavior DeviceBehavior
	// healthAt is the time of each device's last health point (guarded
	// by st.Mu).
	healthAt map[string]time.Time

	faults  *faults.Set
	choices settings.State
	answers answers

	cmu      sync.Mutex
	counters map[string]int64
	total    atomic.Int64

	hooks *webhook.Queue
	// sends are the jobs and FOTA sent to devices (Sends; guarded by st.Mu).
	sends []Send

	closing   chan struct{}
	closeOnce sync.Once
	closeErr  error

	lmu        sync.Mutex
	mgmtSrv    *http.Server
	storageSrv *http.Server
	mgmtURL    string
	storageURL string
	serveWG    sync.WaitGroup

	apiRoutes     *router
	storageRoutes *router
	admin         *admin.API[Choices, DeviceBehavior, DataPoint, Bootstrap]
}

// New creates a server, loading Options.StateFile when it exists. It does
// not listen yet: see Start, or use ManagementHandler and StorageHandler.
func New(opts Options) (*Server, error) {
	s := &Server{
		opts:     opts,
		log:      opts.Logger,
		counters: map[string]int64{},
		healthAt: map[string]time.Time{},
		closing:  make(chan struct{}),
	}
	if s.log == nil {
		s.log = log.New(io.Discard, "", 0)
	}
	s.st = store.New(s.log.Printf)
	if err := opts.Choices.Validate(); err != nil {
		return nil, fmt.Errorf("localzdm: choices: %w", err)
	}
	s.choices.Set(opts.Choices)
	if err := s.checkBehavior(opts.DeviceBehavior); err != nil {
		return nil, fmt.Errorf("localzdm: device behavior: %w", err)
	}
	s.behavior = opts.DeviceBehavior.Normalized()
	s.answers.wake = make(chan struct{}, 1)
	s.faults = faults.New(s.closing)
	s.apiRoutes = s.newAPIRouter()
	s.storageRoutes = s.newStorageRouter()
	s.admin = admin.New[Choices, DeviceBehavior, DataPoint, Bootstrap](s, s.log, opts.LogRequests)
	if opts.StateFile != "" {
		if err := s.st.OpenState(opts.StateFile, opts.Sync); err != nil {
			return nil, err
		}
		s.opts.StateFile = s.st.StatePath()
	}
	s.hooks = webhook.New(s.log, s.closing)
	// Work left pending in the state file is answered under this behavior.
	s.st.Mu.Lock()
	s.replanPendingLocked(time.Now())
	s.st.Mu.Unlock()
	return s, nil
}

// Start listens on the two addresses (e.g. "127.0.0.1:0") and serves the
// management service with the admin API on the first and the storage service
// on the second. It returns once both listeners are open.
func (s *Server) Start(mgmtAddr, storageAddr string) error {
	s.lmu.Lock()
	defer s.lmu.Unlock()
	if s.mgmtSrv != nil {
		return errors.New("localzdm: server already started")
	}
	select {
	case <-s.closing:
		return errors.New("localzdm: server closed")
	default:
	}
	var lc net.ListenConfig
	mln, err := lc.Listen(context.Background(), "tcp", mgmtAddr)
	if err != nil {
		return fmt.Errorf("localzdm: management listener: %w", err)
	}
	sln, err := lc.Listen(context.Background(), "tcp", storageAddr)
	if err != nil {
		_ = mln.Close()
		return fmt.Errorf("localzdm: storage listener: %w", err)
	}
	s.mgmtSrv = s.newHTTPServer(s.ManagementHandler())
	s.storageSrv = s.newHTTPServer(s.StorageHandler())
	s.mgmtURL = "http://" + ClientAddr(mln.Addr().String())
	s.storageURL = "http://" + ClientAddr(sln.Addr().String())
	for _, p := range []struct {
		srv *http.Server
		ln  net.Listener
	}{{s.mgmtSrv, mln}, {s.storageSrv, sln}} {
		s.serveWG.Add(1)
		go func() {
			defer s.serveWG.Done()
			if err := p.srv.Serve(p.ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
				s.log.Printf("localzdm: serve %s: %v", p.ln.Addr(), err)
			}
		}()
	}
	s.log.Printf("localzdm: management service on %s, storage service on %s", s.mgmtURL, s.storageURL)
	return nil
}

// ClientAddr is the address a client on this machine uses to reach a
// listener on addr (host:port): a wildcard host (0.0.0.0, ::), which no
// client can dial, becomes 127.0.0.1, which the listener also serves (Go
// listens on both families for either wildcard); any other host is kept.
func ClientAddr(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return addr
	}
	return net.JoinHostPort(ClientHost(host), port)
}

// ClientHost is ClientAddr for a host alone.
func ClientHost(host string) string {
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		return "127.0.0.1"
	}
	return host
}

func (s *Server) newHTTPServer(h http.Handler) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       90 * time.Second,
		ErrorLog:          s.log,
	}
}

// BaseURL is the management service's address without /v3, e.g.
// "http://127.0.0.1:PORT"; empty before Start.
func (s *Server) BaseURL() string {
	s.lmu.Lock()
	defer s.lmu.Unlock()
	return s.mgmtURL
}

// StorageURL is the storage service's address without /v3; empty before Start.
func (s *Server) StorageURL() string {
	s.lmu.Lock()
	defer s.lmu.Unlock()
	return s.storageURL
}

// AdminURL is the admin API's address (BaseURL + "/admin"); empty before Start.
func (s *Server) AdminURL() string {
	if u := s.BaseURL(); u != "" {
		return u + "/admin"
	}
	return ""
}

// Close stops both listeners, releases hanging requests, stops webhook
// delivery and writes the state file a last time. It is safe to call twice.
func (s *Server) Close() error {
	s.closeOnce.Do(func() {
		close(s.closing)
		s.lmu.Lock()
		srvs := []*http.Server{s.mgmtSrv, s.storageSrv}
		s.lmu.Unlock()
		var errs []error
		for _, srv := range srvs {
			if srv == nil {
				continue
			}
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			if err := srv.Shutdown(ctx); err != nil {
				if cerr := srv.Close(); cerr != nil {
					errs = append(errs, cerr)
				}
			}
			cancel()
		}
		s.serveWG.Wait()
		s.hooks.Stop()
		if s.st.Persistent() {
			if err := s.st.CloseState(); err != nil {
				errs = append(errs, err)
			}
		}
		s.closeErr = errors.Join(errs...)
	})
	return s.closeErr
}

// Sync waits until every change made so far is written to the journal of
// the state file (and fsynced with Options.Sync). It returns at once without
// a state file.
func (s *Server) Sync() error { return s.st.Sync() }

// ManagementHandler serves the management service under /v3 and the admin
// API under /admin/.
func (s *Server) ManagementHandler() http.Handler {
	return awaitSaved(s.st, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/admin" || strings.HasPrefix(r.URL.Path, "/admin/") {
			s.admin.ServeHTTP(w, r)
			return
		}
		s.serveAPI(w, r, s.apiRoutes)
	}))
}

// StorageHandler serves the storage service under /v3.
func (s *Server) StorageHandler() http.Handler {
	return awaitSaved(s.st, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.serveAPI(w, r, s.storageRoutes)
	}))
}

// serveAPI runs one API request: count, request faults, faults, route,
// authenticate, handle.
func (s *Server) serveAPI(w http.ResponseWriter, r *http.Request, rt *router) {
	start := time.Now()
	rw := &httpio.StatusWriter{ResponseWriter: w}
	defer func() {
		if s.opts.LogRequests {
			s.log.Printf("localzdm: %s %s -> %d (%s)", r.Method, r.URL.RequestURI(), rw.Status, time.Since(start).Round(time.Microsecond))
		}
	}()
	segs, ok := httpio.SplitPath(r.URL.EscapedPath())
	var rte *route
	var params map[string]string
	var allowed []string
	if ok {
		rte, params, allowed = rt.Match(r.Method, segs)
	}
	switch {
	case rte != nil:
		s.count(r.Method + " " + rte.Pattern)
	default:
		s.count(r.Method + " (no route)")
	}
	var dropAnswer bool
	if f := s.faults.TakeRequestFault(r.Method, segs); f != nil {
		var answered bool
		if r, answered, dropAnswer = s.faults.ApplyRequestFault(rw, r, f); answered {
			return
		}
	}
	if s.faults.Inject(rw, r) {
		return
	}
	resp, err := func() (any, error) {
		if rte == nil || params == nil {
			if len(allowed) > 0 {
				return nil, httpio.MethodNotAllowed(rw, r.Method, allowed)
			}
			return nil, httpio.RouteNotFound(r)
		}
		keyWS, err := s.authenticate(r)
		if err != nil {
			return nil, err
		}
		return rte.Handle(&call{s: s, w: rw, r: r, params: params, keyWorkspace: keyWS})
	}()
	if dropAnswer {
		httpio.DropConnection(rw)
		return
	}
	if err != nil {
		writeError(rw, err)
		return
	}
	if rte.Mutating && s.faults.CurrentFaults().DropAfterCreate {
		httpio.DropConnection(rw)
		return
	}
	if err := httpio.WriteJSON(rw, resp); err != nil {
		s.log.Printf("localzdm: %s %s: writing response: %v", r.Method, r.URL.Path, err)
	}
}

// authenticate resolves the X-API-KEY header to the workspace it is bound to.
func (s *Server) authenticate(r *http.Request) (string, error) {
	key := r.Header.Get("X-API-KEY")
	if key == "" {
		return "", newError(http.StatusUnauthorized, CodeUnauthenticated, "missing API key: send it in the X-API-KEY header")
	}
	s.st.Mu.RLock()
	defer s.st.Mu.RUnlock()
	ws, ok := s.st.Keys[key]
	if !ok || s.st.Workspaces[ws] == nil {
		return "", newError(http.StatusUnauthorized, CodeUnauthenticated, "invalid API key")
	}
	return ws, nil
}

// count adds one to the counter of a route key.
func (s *Server) count(key string) {
	s.cmu.Lock()
	s.counters[key]++
	s.total.Add(1)
	s.cmu.Unlock()
}

// Counters returns a copy of the API request counters, keyed by
// "METHOD /v3/route/pattern" (e.g. "GET /v3/workspaces/{workspace_id}/devices").
// Requests that match no route are counted under "METHOD (no route)". Admin
// requests are not counted.
func (s *Server) Counters() map[string]int64 {
	s.cmu.Lock()
	defer s.cmu.Unlock()
	out := make(map[string]int64, len(s.counters))
	for k, v := range s.counters {
		out[k] = v
	}
	return out
}

// TotalRequests is the number of API requests (both services) since the
// start or the last ResetCounters.
func (s *Server) TotalRequests() int64 {
	return s.total.Load()
}

// RateLimited is the number of API requests answered 429 for the rate limit
// of the faults since the start or the last ResetCounters.
func (s *Server) RateLimited() int64 {
	return s.faults.Refused()
}

// ResetCounters sets all request counters to zero.
func (s *Server) ResetCounters() {
	s.faults.ResetRefused()
	s.cmu.Lock()
	s.counters = map[string]int64{}
	s.total.Store(0)
	s.cmu.Unlock()
}
