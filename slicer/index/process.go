package index

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/go-git/go-git/v5/plumbing/filemode"

	"github.com/ctxtrim/ctxtrim/internal/badutf8"
)

// This file turns one candidate into a File or a Skip: its mode, class,
// size, blob hash, status and cached or fresh analysis.

// process turns one candidate into a File or a Skip. Only a cancelled
// context is an error.
func (w *worker) process(ctx context.Context, c candidate) (result, error) {
	b := w.b
	skip := func(reason, detail string) (result, error) {
		return result{skip: &Skip{Path: c.path, Reason: reason, Detail: detail}}, nil
	}
	abs := filepath.Join(b.root, filepath.FromSlash(c.path))
	readPath := abs
	symlink := c.mode&fs.ModeSymlink != 0
	var fi fs.FileInfo
	var err error
	if symlink {
		target, err := filepath.EvalSymlinks(abs)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return skip(SkipSymlinkBroken, readlink(abs))
			}
			if strings.Contains(err.Error(), "too many links") {
				return skip(SkipSymlinkLoop, readlink(abs))
			}
			return skip(SkipUnreadable, err.Error())
		}
		if rel, err := filepath.Rel(b.root, target); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return skip(SkipSymlinkOutside, readlink(abs))
		}
		readPath = target
		fi, err = os.Stat(target)
		if err != nil {
			return skip(SkipUnreadable, err.Error())
		}
		if fi.IsDir() {
			return skip(SkipSymlinkDir, readlink(abs))
		}
	} else if fi, err = os.Lstat(abs); err != nil {
		return skip(SkipUnreadable, err.Error())
	}
	if !fi.Mode().IsRegular() {
		return skip(SkipSpecial, fi.Mode().Type().String())
	}

	class := classifyPath(c.path, c.ling)
	if c.vendored && c.ling.state[lingVendored] != attrFalse {
		class = Vendored
	}
	if r := classSkip(class); r != "" && !b.opts.All {
		return skip(r, c.ling.detail(class))
	}
	size := fi.Size()
	if b.maxSize > 0 && size > b.maxSize {
		// A large binary (a logo, an archive) is binary first: only a
		// text file over the limit is worth telling the user about.
		if binaryHead(readPath) {
			return skip(SkipBinary, "")
		}
		return skip(SkipTooLarge, fmt.Sprintf("%d bytes > %d", size, b.maxSize))
	}
	if size > maxFixtureBytes && class == Test && isFixturePath(c.path) {
		class = Fixture
		if !b.opts.All {
			return skip(SkipFixture, fmt.Sprintf("%d bytes > %d", size, maxFixtureBytes))
		}
	}

	// Blob hash and status.
	var content []byte
	var blob string
	var status Status
	e := c.entry
	switch {
	case b.repo == nil:
	case e == nil:
		status |= Untracked
	case b.staged[c.path]:
		status |= Staged
	}
	if e != nil && !symlink && (e.Mode == filemode.Regular || e.Mode == filemode.Executable) &&
		int64(e.Size) == size&0xffffffff && e.ModifiedAt.Equal(fi.ModTime()) && !b.racy(fi) && !b.conflicted[c.path] {
		blob = e.Hash.String()
	} else {
		if content, err = w.read(readPath, size); err != nil {
			return skip(SkipUnreadable, err.Error())
		}
		blob = hashBlob(content)
		if e != nil {
			same := blob == e.Hash.String()
			if symlink && e.Mode == filemode.Symlink {
				t, _ := os.Readlink(abs)
				same = hashBlob([]byte(t)) == e.Hash.String()
			}
			if !same || e.IntentToAdd || b.conflicted[c.path] {
				status |= Modified
			}
		}
	}

	hint := DetectLang(c.path, nil)
	if hint == "" && path.Ext(c.path) == "" {
		hint = "#!" // the "#!" line decides: part of the content
	}
	key := cacheKey(blob, hint)
	ce, ok := w.cache.get(key)
	if !ok {
		if content == nil {
			if content, err = w.read(readPath, size); err != nil {
				return skip(SkipUnreadable, err.Error())
			}
		}
		if ce, err = w.analyze(ctx, c.path, content); err != nil {
			return result{}, err
		}
		w.cache.put(key, ce)
	}
	res := result{key: key}
	switch {
	case ce.Binary:
		res.skip = &Skip{Path: c.path, Reason: SkipBinary}
		return res, nil
	case ce.NotUTF8:
		res.skip = &Skip{Path: c.path, Reason: SkipNotUTF8, Detail: notUTF8Detail(ce.BadByte)}
		return res, nil
	case ce.Generated && c.ling.state[lingGenerated] != attrFalse:
		class = Generated
	case ce.Minified:
		class = Minified
	}
	if r := classSkip(class); r != "" && !b.opts.All {
		res.skip = &Skip{Path: c.path, Reason: r, Detail: "by content"}
		return res, nil
	}
	res.file = File{
		Path:    c.path,
		Size:    size,
		Lang:    ce.Lang,
		Blob:    blob,
		Status:  status,
		Class:   class,
		Tokens:  ce.Tokens,
		Symbols: ce.Symbols,
		Refs:    ce.Refs,
	}
	return res, nil
}

// racy reports a file modified in the same second as, or after, the git
// index was written: its stat data cannot prove it unchanged (git's "racily
// clean" entries), so it is hashed.
func (b *builder) racy(fi fs.FileInfo) bool {
	return b.indexTime.IsZero() || !fi.ModTime().Before(b.indexTime)
}

// textSignature reports whether content that is not valid UTF-8 may still
// be text in a legacy encoding: a format with a signature that is not text
// (a PDF, which Illustrator's .ai files are) has no NUL byte early, but it
// is binary all the same, and no encoding converts it. The standard
// library's sniffer (net/http.DetectContentType) knows the signatures.
func textSignature(content []byte) bool {
	return strings.HasPrefix(http.DetectContentType(content), "text/")
}

// binaryHead reports whether the file at p looks binary by its first
// BinarySniffBytes bytes: a NUL byte, or bytes that are not UTF-8 in a
// format that is not text. An unreadable file is not (it is reported as
// what it is elsewhere).
func binaryHead(p string) bool {
	f, err := os.Open(p)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, BinarySniffBytes)
	n, _ := io.ReadFull(f, head)
	head = head[:n]
	if isBinary(head) {
		return true
	}
	// A rune cut off by the head's end is not a bad byte.
	at := badutf8.Offset(head)
	return at < len(head) && utf8.FullRune(head[at:]) && !textSignature(head)
}

// analyze computes the cacheable facts about one file's content.
func (w *worker) analyze(ctx context.Context, p string, src []byte) (*cacheEntry, error) {
	ce := &cacheEntry{}
	if isBinary(src) {
		ce.Binary = true
		return ce, nil
	}
	if !utf8.Valid(src) {
		if !textSignature(src) {
			ce.Binary = true
			return ce, nil
		}
		ce.NotUTF8, ce.BadByte = true, badutf8.Offset(src)
		return ce, nil
	}
	ce.Generated = isGeneratedContent(p, src)
	ce.Minified = isMinified(src)
	ce.Tokens = (len(src) + bytesPerToken - 1) / bytesPerToken
	if w.seen == nil {
		w.seen = map[string]struct{}{}
	}
	lang := DetectLang(p, src)
	if lang != "" && !ce.Minified {
		syms, refs, err := w.x.extract(ctx, lang, src)
		switch {
		case ctx.Err() != nil:
			return nil, ctx.Err()
		case err != nil:
			w.b.logf("%s: %v (indexed lexically)", p, err)
		default:
			ce.Lang, ce.Symbols, ce.Refs = lang, w.b.strs.symbols(syms), w.b.strs.all(refs)
			return ce, nil
		}
	}
	ce.Refs = w.b.strs.all(lexicalRefs(src, w.seen))
	return ce, nil
}

// hashBlob is git's blob hash of content.
func hashBlob(content []byte) string {
	h := sha1.New()
	h.Write([]byte("blob " + strconv.Itoa(len(content)) + "\x00"))
	h.Write(content)
	return hex.EncodeToString(h.Sum(nil))
}

func readlink(p string) string {
	t, err := os.Readlink(p)
	if err != nil {
		return ""
	}
	return "-> " + t
}
