package engine_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"

	"github.com/partita-db/partita/internal/cqlerr"
	"github.com/partita-db/partita/internal/cqltest"
	"github.com/partita-db/partita/internal/engine"
	"github.com/partita-db/partita/internal/types"
)

// TestGroupByPagingMatchesUnpaged replays testdata/group_by and runs each of
// its SELECTs again at page sizes 1 to 10: the pages together must hold the
// unpaged rows in the same order, no page more than its size
// (SelectGroupByTest's testGroupBy*WithPaging do the same from 1 to 9). A
// page boundary must neither split nor repeat a group, and LIMIT and PER
// PARTITION LIMIT must carry over from page to page.
func TestGroupByPagingMatchesUnpaged(t *testing.T) {
	h := cqltest.New(t)
	datadriven.RunTest(t, "testdata/group_by", func(t *testing.T, d *datadriven.TestData) string {
		out := h.Run(d)
		if (d.Cmd != "query" && d.Cmd != "exec") || d.HasArg("page-size") {
			return out
		}
		for _, stmt := range cqltest.SplitStatements(d.Input) {
			if !strings.HasPrefix(strings.ToUpper(stmt), "SELECT") {
				continue
			}
			want, err := allPages(h.Session, stmt, 0)
			if err != nil {
				continue // the error itself is the expected output
			}
			for size := 1; size <= 10; size++ {
				got, err := allPages(h.Session, stmt, size)
				if err != nil {
					if e := cqlerr.As(err); e.Code == cqlerr.Invalid && strings.HasPrefix(e.Message, "Cannot page queries with both ORDER BY and a IN") {
						break // post-ordered aggregation queries refuse paging (see the file)
					}
					t.Errorf("%s:\npage size %d: %v", stmt, size, err)
					break
				}
				if g, w := strings.Join(got, "\n"), strings.Join(want, "\n"); g != w {
					t.Errorf("%s:\npage size %d returned\n%s\nunpaged\n%s", stmt, size, g, w)
				}
			}
		}
		return out
	})
}

// allPages runs a SELECT, fetching every page of pageSize rows (0: no
// paging), and returns its rows formatted one per string. A page larger
// than pageSize is an error.
func allPages(s *engine.Session, stmt string, pageSize int) ([]string, error) {
	var rows []string
	opts := &engine.Options{PageSize: int32(pageSize)}
	for page := 0; ; page++ {
		if page > 1000 {
			return nil, fmt.Errorf("more than 1000 pages")
		}
		res, err := s.Query(context.Background(), stmt, opts)
		if err != nil {
			return nil, err
		}
		if pageSize > 0 && len(res.Rows) > pageSize {
			return nil, fmt.Errorf("page %d has %d rows", page+1, len(res.Rows))
		}
		for _, row := range res.Rows {
			cells := make([]string, len(row))
			for i, v := range row {
				cells[i] = types.Format(res.Columns[i].Type, v)
			}
			rows = append(rows, strings.Join(cells, " | "))
		}
		if res.PagingState == nil {
			return rows, nil
		}
		opts.PagingState = res.PagingState
	}
}
