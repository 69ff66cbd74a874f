package cli

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

	"github.com/megagit/megagit/config"
	"github.com/megagit/megagit/embedcache"
	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
)

// defaultModelHub serves model files at <hub>/<hub id>/resolve/<revision>/<path>
// (the Hugging Face layout); MEGAGIT_MODEL_HUB points elsewhere (a mirror, a test server).
const defaultModelHub = "https://huggingface.co"

// pullManifest is written next to a pulled model: where each file came from
// and its sha256, so a folder can be checked and shared.
const pullManifest = "megagit-model.json"

// errChecksum: a downloaded file does not match its pinned sha256 (or size).
var errChecksum = errors.New("checksum mismatch")

type modelPullOptions struct {
	app           *app
	id            string
	insecureNoPin bool
	force         bool
	lookup        func(id string) (embedcache.Profile, bool) // embedcache.ProfileFor; tests swap it
	client        *http.Client
}

func newModelPullCmd(a *app) *cobra.Command {
	opts := &modelPullOptions{app: a, lookup: embedcache.ProfileFor}
	cmd := &cobra.Command{
		Use:   "pull ID",
		Short: "Download an ONNX model (model.onnx + tokenizer.json) into the user cache, sha256-checked",
		Long: "Download an ONNX model's pinned files from the model hub (MEGAGIT_MODEL_HUB, default\n" +
			defaultModelHub + ") into <user cache dir>/megagit/models/ID. Every file is checked against\n" +
			"its pinned sha256 before the folder is installed, in one rename; an interrupted download\n" +
			"resumes. A profile without pinned digests is refused unless --insecure-no-pin is given.",
		Args: exactArgs(1, "one model ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.id = args[0]
			return modelPullRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.insecureNoPin, "insecure-no-pin", false, "download files that have no pinned sha256 (their digests are recorded and printed)")
	cmd.Flags().BoolVar(&opts.force, "force", false, "download again even when the model is installed")
	return cmd
}

// pulledFile is one line of the manifest.
type pulledFile struct {
	Name   string `json:"name"`
	URL    string `json:"url"`
	SHA256 string `json:"sha256"`
	Size   int64  `json:"size"`
	Pinned bool   `json:"pinned"`
}

type pulled struct {
	ID       string       `json:"id"`
	HubID    string       `json:"hub_id"`
	Revision string       `json:"revision"`
	Pulled   string       `json:"pulled"`
	Files    []pulledFile `json:"files"`
}

func modelPullRun(ctx context.Context, opts *modelPullOptions) error {
	errOut := opts.app.errOut
	prof, known := opts.lookup(opts.id)
	if !known {
		return withHint(fmt.Errorf("%w: unknown model %q", config.ErrInvalid, opts.id),
			"run `megagit model list` to see the known models")
	}
	useDir := "put model.onnx and tokenizer.json (e.g. an ONNX export from the model hub) in a folder and run `megagit model use --dir DIR`"
	if prof.Kind != "onnx" {
		return fmt.Errorf("%w: model %s is %s, not a downloadable ONNX model", config.ErrInvalid, prof.ID, prof.Kind)
	}
	if len(prof.Files) == 0 || prof.HubID == "" {
		return withHint(fmt.Errorf("%w: model %s has no known download", config.ErrInvalid, prof.ID), useDir)
	}
	if !prof.Pinned() && !opts.insecureNoPin {
		return withHint(fmt.Errorf("%w: model %s has no pinned sha256 for its files, so a download cannot be verified", config.ErrInvalid, prof.ID),
			"`megagit model pull "+prof.ID+" --insecure-no-pin` downloads "+prof.HubID+"@"+prof.Revision+" anyway and records the digests it got",
			"or "+useDir)
	}
	dest, err := embedcache.ModelCacheDir(prof.ID)
	if err != nil {
		return err
	}
	if !opts.force && installed(dest, prof) {
		fmt.Fprintf(errOut, "megagit: %s is already installed\n", prof.ID)
		fmt.Fprintln(opts.app.out, dest)
		return nil
	}
	hub := strings.TrimRight(os.Getenv("MEGAGIT_MODEL_HUB"), "/")
	if hub == "" {
		hub = defaultModelHub
	}
	client := opts.client
	if client == nil {
		client = &http.Client{Transport: &http.Transport{Proxy: http.ProxyFromEnvironment, ResponseHeaderTimeout: 60 * time.Second}}
	}
	// Files land in a staging folder next to dest (kept across runs so a
	// broken download resumes) and become dest in one rename once verified.
	staging := filepath.Join(filepath.Dir(dest), "."+filepath.Base(dest)+".partial")
	if err := os.MkdirAll(staging, 0o755); err != nil {
		return err
	}
	man := pulled{ID: prof.ID, HubID: prof.HubID, Revision: prof.Revision, Pulled: opts.app.now().UTC().Format(time.RFC3339)}
	for _, f := range prof.Files {
		url := hub + "/" + prof.HubID + "/resolve/" + prof.Revision + "/" + f.Path
		sum, size, err := fetch(ctx, client, url, filepath.Join(staging, f.Name), f, errOut)
		if err == nil && ((f.SHA256 != "" && !strings.EqualFold(sum, f.SHA256)) || (f.Size > 0 && size != f.Size)) {
			err = fmt.Errorf("%w: %s: got sha256 %s (%d bytes), pinned %s", errChecksum, f.Name, sum, size, f.SHA256)
		}
		if err != nil {
			if errors.Is(err, errChecksum) {
				os.RemoveAll(staging) // never resume from bad bytes
			}
			return fmt.Errorf("pull %s: %w", prof.ID, err)
		}
		if f.SHA256 == "" {
			fmt.Fprintf(errOut, "megagit: warning: %s is not pinned; downloaded sha256 %s\n", f.Name, sum)
		}
		man.Files = append(man.Files, pulledFile{Name: f.Name, URL: url, SHA256: sum, Size: size, Pinned: f.SHA256 != ""})
	}
	data, err := json.MarshalIndent(man, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(staging, pullManifest), append(data, '\n'), 0o644); err != nil {
		return err
	}
	if err := replaceDir(staging, dest); err != nil {
		return fmt.Errorf("pull %s: %w", prof.ID, err)
	}
	fmt.Fprintf(errOut, "megagit: installed %s; `megagit model use %s` routes with it\n", prof.ID, prof.ID)
	fmt.Fprintln(opts.app.out, dest)
	return nil
}

// installed reports whether dest holds a finished pull of prof's files
// (pinned digests must match the manifest's; files must have its sizes).
func installed(dest string, prof embedcache.Profile) bool {
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
		if st, err := os.Stat(filepath.Join(dest, f.Name)); err != nil || st.Size() != m.Size {
			return false
		}
	}
	return true
}

// fetch downloads url into path, resuming a partial file with a Range
// request, and returns the whole file's sha256 and size.
func fetch(ctx context.Context, client *http.Client, url, path string, f embedcache.ModelFile, errOut io.Writer) (string, int64, error) {
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
	req.Header.Set("User-Agent", "megagit/"+version)
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
	if isTTY(errOut) {
		bar := progressbar.NewOptions64(total, progressbar.OptionSetWriter(errOut), progressbar.OptionShowBytes(true),
			progressbar.OptionSetDescription(f.Name), progressbar.OptionThrottle(100*time.Millisecond),
			progressbar.OptionOnCompletion(func() { fmt.Fprintln(errOut) }))
		_ = bar.Set64(have)
		w = io.MultiWriter(w, bar)
	} else {
		fmt.Fprintf(errOut, "megagit: downloading %s (%s)\n", f.Name, sizeText(total))
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

func sizeText(n int64) string {
	switch {
	case n <= 0:
		return "size unknown"
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%d bytes", n)
}
