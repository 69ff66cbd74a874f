package train

import (
	"bufio"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/megagit/megagit/local"
	"github.com/megagit/megagit/models"
)

// PairsInfo describes a loaded pairs file for a model's recipe.
type PairsInfo struct {
	SHA256 string // of the pairs file as stored (compressed or not)
	Lines  int    // pairs with non-empty a and b read (up to max)
	Pairs  int    // pairs kept after tokenising (both sides have tokens)
	Cached bool   // the tokenised pairs came from the cache
}

var pairsMagic = [8]byte{'M', 'G', 'P', 'A', 'I', 'R', 'S', '1'}

// LoadPairs reads and tokenises a pairs file, caching the token ids in
// cacheDir (when not empty) under the file's sha256, the tokenizer's sha256
// and max, so a resumed training run skips the tokenising.
func LoadPairs(path string, max int, tok *models.Tokenizer, cacheDir string, workers int) ([]Pair, PairsInfo, error) {
	var info PairsInfo
	sum, err := FileSHA256(path)
	if err != nil {
		return nil, info, err
	}
	info.SHA256 = sum
	cache := ""
	if cacheDir != "" {
		cache = filepath.Join(cacheDir, fmt.Sprintf("pairs-%.16s-%.12s-%d.bin", sum, tok.SHA256(), max))
		if pairs, lines, err := readPairsCache(cache); err == nil {
			info.Lines, info.Pairs, info.Cached = lines, len(pairs), true
			return pairs, info, nil
		} else if !errors.Is(err, fs.ErrNotExist) {
			return nil, info, fmt.Errorf("%s: %w", cache, err)
		}
	}
	texts, _, err := ReadPairs(path, max)
	if err != nil {
		return nil, info, err
	}
	pairs := TokenizePairs(tok, texts, workers)
	info.Lines, info.Pairs = len(texts), len(pairs)
	if cache != "" {
		if err := writePairsCache(cache, pairs, len(texts)); err != nil {
			return nil, info, err
		}
	}
	return pairs, info, nil
}

// FileSHA256 is the hex sha256 of a file's bytes, which the model's
// recipe records for its training pairs and its starting model.
func FileSHA256(path string) (string, error) {
	f, _, err := local.OpenRegular(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// writePairsCache stores A and B ids as uvarints (hard negatives are not
// part of pairs files), atomically.
func writePairsCache(path string, pairs []Pair, lines int) error {
	// A write error sticks in WriteAtomic's buffer and fails its flush.
	return local.WriteAtomic(path, 0o644, false, func(w io.Writer) error {
		w.Write(pairsMagic[:])
		var buf []byte
		buf = binary.AppendUvarint(buf, uint64(lines))
		buf = binary.AppendUvarint(buf, uint64(len(pairs)))
		for _, p := range pairs {
			for _, t := range [][]int32{p.A, p.B} {
				buf = binary.AppendUvarint(buf, uint64(len(t)))
				for _, id := range t {
					buf = binary.AppendUvarint(buf, uint64(id))
				}
			}
			if len(buf) > 1<<16 {
				w.Write(buf)
				buf = buf[:0]
			}
		}
		_, err := w.Write(buf)
		return err
	})
}

func readPairsCache(path string) ([]Pair, int, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 1<<20)
	var magic [8]byte
	if _, err := io.ReadFull(r, magic[:]); err != nil || magic != pairsMagic {
		return nil, 0, fmt.Errorf("not a megagit pairs cache")
	}
	lines, err := binary.ReadUvarint(r)
	if err != nil {
		return nil, 0, err
	}
	n, err := binary.ReadUvarint(r)
	if err != nil || n > lines {
		return nil, 0, fmt.Errorf("bad pairs cache header")
	}
	pairs := make([]Pair, n)
	text := func() ([]int32, error) {
		k, err := binary.ReadUvarint(r)
		if err != nil || k > 1<<16 {
			return nil, fmt.Errorf("bad pairs cache entry")
		}
		t := make([]int32, k)
		for i := range t {
			id, err := binary.ReadUvarint(r)
			if err != nil || id > 1<<31-1 {
				return nil, fmt.Errorf("bad pairs cache entry")
			}
			t[i] = int32(id)
		}
		return t, nil
	}
	for i := range pairs {
		if pairs[i].A, err = text(); err != nil {
			return nil, 0, err
		}
		if pairs[i].B, err = text(); err != nil {
			return nil, 0, err
		}
	}
	return pairs, int(lines), nil
}
