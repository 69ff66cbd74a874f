package models

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// DefaultModelHub serves model files at <hub>/<hub id>/resolve/<revision>/<path>
// (the Hugging Face layout); PullOptions.Hub points elsewhere (a mirror, a test server).
const DefaultModelHub = "https://huggingface.co"

// pullManifest is written next to a pulled model: where each file came from
// and its sha256, so a folder can be checked and shared.
const pullManifest = "megagit-model.json"

// ErrChecksum: a downloaded file does not match its pinned sha256 (or size).
var ErrChecksum = errors.New("checksum mismatch")

// ErrCannotCheck: a profile's model is checked by running it on reference
// sentences (Profile.Reference), and this megagit cannot run it: built
// without ONNX support, or ONNX Runtime is missing. It wraps ErrNoRuntime.
var ErrCannotCheck = errors.New("it is checked by running it on reference sentences, which needs ONNX Runtime")

// Why Pull refuses a profile before downloading anything; callers say what
// to do instead.
var (
	ErrNotDownloadable = errors.New("not a downloadable ONNX model")
	ErrNoDownload      = errors.New("no known download")
	ErrUnpinned        = errors.New("no pinned sha256 for its files, so a download cannot be verified")
)

// PullOptions say what Pull fetches, from where, and whom it tells.
type PullOptions struct {
	Profile       Profile
	Hub           string    // model hub base URL; "" = DefaultModelHub
	UserAgent     string    // e.g. "megagit/1.2.3"
	InsecureNoPin bool      // download files without a pinned sha256 (recording the digests got), and a model that cannot be run to check it
	Runtime       string    // ONNX Runtime library path, for a profile checked by reference vectors
	Force         bool      // download again even when the model is installed
	Now           time.Time // recorded in the manifest as the pull's time

	// Download is told before a file's bytes are fetched (have of total
	// bytes are already on disk from an earlier run; total <= 0 when
	// unknown) and may return a writer that receives the new bytes, such
	// as a progress bar. Nil: nothing is told.
	Download func(name string, have, total int64) io.Writer
	// Warn receives what a caller should show as a warning (an unpinned
	// file's digest). Nil: warnings are dropped.
	Warn func(msg string)
}

// PullResult is where the model is and whether this pull installed it.
type PullResult struct {
	Dir       string
	Installed bool // false: the model was already installed, nothing was downloaded
}

// pulledFile is one line of the manifest.
type pulledFile struct {
	Name   string `json:"name"`
	URL    string `json:"url"`
	SHA256 string `json:"sha256"`
	Size   int64  `json:"size"`
	Pinned bool   `json:"pinned"`
	// Checked: the file passed the profile's reference check (ByReference).
	Checked bool `json:"checked_by_reference,omitempty"`
}

type pulled struct {
	ID       string       `json:"id"`
	HubID    string       `json:"hub_id"`
	Revision string       `json:"revision"`
	Pulled   string       `json:"pulled"`
	Files    []pulledFile `json:"files"`
}

// Pull downloads an ONNX profile's files into its ModelCacheDir. Every file
// is checked against its pinned sha256, and a file the profile checks by
// reference by embedding the reference sentences with the downloaded
// model, before the folder is installed, in one rename; an interrupted
// download resumes. A reference check that cannot run here (no ONNX
// support, no ONNX Runtime) refuses the pull before anything is
// downloaded, unless InsecureNoPin.
func Pull(ctx context.Context, opts PullOptions) (PullResult, error) {
	prof := opts.Profile
	if prof.Kind != "onnx" {
		return PullResult{}, fmt.Errorf("model %s is %s, %w", prof.ID, prof.Kind, ErrNotDownloadable)
	}
	if len(prof.Files) == 0 || prof.HubID == "" {
		return PullResult{}, fmt.Errorf("model %s has %w", prof.ID, ErrNoDownload)
	}
	if !prof.Pinned() && !opts.InsecureNoPin {
		return PullResult{}, fmt.Errorf("model %s has %w", prof.ID, ErrUnpinned)
	}
	dest, err := ModelCacheDir(prof.ID)
	if err != nil {
		return PullResult{}, err
	}
	if !opts.Force && installed(dest, prof, !opts.InsecureNoPin) {
		return PullResult{Dir: dest}, nil
	}
	check := prof.ChecksByReference()
	if check {
		if err := CheckRuntime(opts.Runtime); err != nil {
			if !opts.InsecureNoPin {
				return PullResult{}, fmt.Errorf("model %s: %w: %w", prof.ID, ErrCannotCheck, err)
			}
			check = false
			if opts.Warn != nil {
				opts.Warn(fmt.Sprintf("%s will not be checked (%v): routing will use it unchecked", prof.ID, err))
			}
		}
	}
	hub := strings.TrimRight(opts.Hub, "/")
	if hub == "" {
		hub = DefaultModelHub
	}
	client := &http.Client{Transport: &http.Transport{Proxy: http.ProxyFromEnvironment, ResponseHeaderTimeout: 60 * time.Second}}
	// Files land in a staging folder next to dest (kept across runs so a
	// broken download resumes) and become dest in one rename once verified.
	staging := filepath.Join(filepath.Dir(dest), "."+filepath.Base(dest)+".partial")
	if err := os.MkdirAll(staging, 0o755); err != nil {
		return PullResult{}, err
	}
	man := pulled{ID: prof.ID, HubID: prof.HubID, Revision: prof.Revision, Pulled: opts.Now.UTC().Format(time.RFC3339)}
	for _, f := range prof.Files {
		url := hub + "/" + prof.HubID + "/resolve/" + prof.Revision + "/" + f.Path
		sum, size, err := opts.fetch(ctx, client, url, filepath.Join(staging, f.Name), f)
		if err == nil && ((f.SHA256 != "" && !strings.EqualFold(sum, f.SHA256)) || (f.Size > 0 && size != f.Size)) {
			err = fmt.Errorf("%w: %s: got sha256 %s (%d bytes), pinned %s", ErrChecksum, f.Name, sum, size, f.SHA256)
		}
		if err != nil {
			if errors.Is(err, ErrChecksum) {
				os.RemoveAll(staging) // never resume from bad bytes
			}
			return PullResult{}, fmt.Errorf("pull %s: %w", prof.ID, err)
		}
		if f.SHA256 == "" && !(check && f.ByReference) && opts.Warn != nil {
			opts.Warn(fmt.Sprintf("%s is not pinned; downloaded sha256 %s", f.Name, sum))
		}
		man.Files = append(man.Files, pulledFile{Name: f.Name, URL: url, SHA256: sum, Size: size, Pinned: f.SHA256 != ""})
	}
	if check {
		if err := checkReference(staging, prof, opts.Runtime); err != nil {
			os.RemoveAll(staging) // never resume from a wrong model
			return PullResult{}, fmt.Errorf("pull %s: %w", prof.ID, err)
		}
		for i, f := range prof.Files {
			man.Files[i].Checked = f.ByReference
		}
	}
	data, err := json.MarshalIndent(man, "", "  ")
	if err != nil {
		return PullResult{}, err
	}
	if err := os.WriteFile(filepath.Join(staging, pullManifest), append(data, '\n'), 0o644); err != nil {
		return PullResult{}, err
	}
	if err := replaceDir(staging, dest); err != nil {
		return PullResult{}, fmt.Errorf("pull %s: %w", prof.ID, err)
	}
	return PullResult{Dir: dest, Installed: true}, nil
}

// checkReference loads the downloaded model in dir and checks it against
// the profile's reference vectors: a model that does not load as the
// profile's (another size, other inputs) or embeds the sentences otherwise
// is refused with ErrBehaviour.
func checkReference(dir string, prof Profile, lib string) error {
	emb, err := NewONNX(dir, prof, lib)
	if err != nil {
		var dim *DimError
		switch {
		case errors.Is(err, ErrNoRuntime):
			return err
		case errors.As(err, &dim):
			return fmt.Errorf("%w: %s is not %s: it gives %d-dimensional vectors, not %d", ErrBehaviour, ONNXModelFile, prof.ID, dim.Got, dim.Want)
		}
		return fmt.Errorf("%w: %s does not load as %s: %w", ErrBehaviour, ONNXModelFile, prof.ID, err)
	}
	if c, ok := emb.(interface{ Close() error }); ok {
		defer c.Close()
	}
	if err := prof.Reference.Check(emb); err != nil {
		return fmt.Errorf("%s is not %s: %w", ONNXModelFile, prof.ID, err)
	}
	return nil
}

// installed reports whether dest holds a finished pull of prof's files
// (pinned digests must match the manifest's; files must have its sizes;
// with checked, a file the profile checks by reference must have passed).
func installed(dest string, prof Profile, checked bool) bool {
	data, err := os.ReadFile(filepath.Join(dest, pullManifest))
	if err != nil {
		return false
	}
	var man pulled
	if json.Unmarshal(data, &man) != nil || len(man.Files) != len(prof.Files) {
		return false
	}
	for i, f := range prof.Files {
		m := man.Files[i]
		if m.Name != f.Name || (f.SHA256 != "" && !strings.EqualFold(m.SHA256, f.SHA256)) {
			return false
		}
		if checked && prof.pinned(f) && f.SHA256 == "" && !m.Checked {
			return false
		}
		if st, err := os.Stat(filepath.Join(dest, f.Name)); err != nil || st.Size() != m.Size {
			return false
		}
	}
	return true
}

// fetch downloads url into path, resuming a partial file with a Range
// request, and returns the whole file's sha256 and size.
func (opts *PullOptions) fetch(ctx context.Context, client *http.Client, url, path string, f ModelFile) (string, int64, error) {
	h := sha256.New()
	have, err := hashFile(path, h)
	if err != nil {
		return "", 0, err
	}
	if f.Size > 0 && have == f.Size {
		return hex.EncodeToString(h.Sum(nil)), have, nil // finished in an earlier run
	}
	if f.Size > 0 && have > f.Size {
		h.Reset()
		have = 0
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return "", 0, err
	}
	req.Header.Set("User-Agent", opts.UserAgent)
	if have > 0 {
		req.Header.Set("Range", fmt.Sprintf("bytes=%d-", have))
	}
	resp, err := client.Do(req)
	if err != nil {
		return "", 0, err
	}
	defer resp.Body.Close()
	flags := os.O_CREATE | os.O_WRONLY
	switch {
	case resp.StatusCode == http.StatusPartialContent && have > 0:
		flags |= os.O_APPEND
	case resp.StatusCode == http.StatusRequestedRangeNotSatisfiable && have > 0:
		// Our partial file is already whole (size unknown beforehand).
		return hex.EncodeToString(h.Sum(nil)), have, nil
	case resp.StatusCode == http.StatusOK:
		flags |= os.O_TRUNC
		h.Reset()
		have = 0
	default:
		return "", 0, fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	out, err := os.OpenFile(path, flags, 0o644)
	if err != nil {
		return "", 0, err
	}
	total := f.Size
	if total <= 0 && resp.ContentLength > 0 {
		total = have + resp.ContentLength
	}
	var w io.Writer = io.MultiWriter(out, h)
	if opts.Download != nil {
		if p := opts.Download(f.Name, have, total); p != nil {
			w = io.MultiWriter(w, p)
		}
	}
	var body io.Reader = resp.Body
	if f.Size > 0 {
		body = io.LimitReader(resp.Body, f.Size-have+1) // a too-long answer fails the size check
	}
	n, copyErr := io.Copy(w, body)
	closeErr := out.Close()
	if copyErr != nil {
		return "", 0, fmt.Errorf("GET %s: %w (run the pull again to resume)", url, copyErr)
	}
	if closeErr != nil {
		return "", 0, closeErr
	}
	return hex.EncodeToString(h.Sum(nil)), have + n, nil
}

// hashFile feeds an existing partial file into h and returns its size (0
// when there is none).
func hashFile(path string, h hash.Hash) (int64, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	defer f.Close()
	return io.Copy(h, f)
}

// replaceDir moves the finished staging folder to dest, replacing an older
// install: at no moment does dest hold a mix of the two.
func replaceDir(staging, dest string) error {
	old := ""
	if _, err := os.Stat(dest); err == nil {
		old = dest + ".old"
		os.RemoveAll(old)
		if err := os.Rename(dest, old); err != nil {
			return err
		}
	}
	if err := os.Rename(staging, dest); err != nil {
		if old != "" {
			os.Rename(old, dest)
		}
		return err
	}
	if old != "" {
		os.RemoveAll(old)
	}
	return nil
}
