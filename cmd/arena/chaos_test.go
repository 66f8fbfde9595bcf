package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/internal/arenatest"
	"github.com/sudoku-arena/arena/protocol"
	"github.com/sudoku-arena/arena/room"
	"github.com/sudoku-arena/arena/store/pgtest"
	"github.com/sudoku-arena/arena/store/postgres"
)

// The chaos cluster's timing: a short heartbeat and timeout, so that a
// dead node's rooms move soon; the faults themselves last as long as in
// production's worst cases (20 s, 25 s), several times NODE_TIMEOUT.
const (
	chaosHeartbeat = 500 * time.Millisecond
	chaosTimeout   = 3 * time.Second
	chaosRooms     = 8 // co-op and race in turn
	chaosSeats     = 3
	// chaosWarmup is play before the fault; chaosSettle bounds play after
	// it, until every room has finished.
	chaosWarmup = 4 * time.Second
	chaosSettle = 40 * time.Second
	// roomsBackBound is what the product promises after nodes die: every
	// room is played again within 15 s.
	roomsBackBound = 15 * time.Second
)

// chaosCluster is three nodes over one PostgreSQL, n3's link to it
// through a proxy the test cuts, and nginx in front of them with the
// deployment's configuration.
type chaosCluster struct {
	pg    *pgtest.Server
	db    string // the database, reached directly
	proxy *arenatest.TCPProxy
	nodes []*arenatest.Arena
	lb    *arenatest.Balancer
}

func startChaosCluster(t *testing.T) *chaosCluster {
	t.Helper()
	ctx := context.Background()
	// Durable: an immediate stop of PostgreSQL then loses no commit, as
	// in production.
	pg, err := pgtest.Start(ctx, pgtest.Options{Own: true, Durable: true})
	require.NoError(t, err)
	t.Cleanup(pg.Stop)
	db := pg.NewDatabase(t)
	u, err := url.Parse(db)
	require.NoError(t, err)
	proxy := arenatest.StartTCPProxy(t, u.Host)
	viaProxy, err := proxy.Via(db)
	require.NoError(t, err)
	nodes := arenatest.StartNodes(t, arenatest.NodeOptions{
		DatabaseURL: db, DatabaseURLs: []string{"", "", viaProxy}, N: 3,
		Heartbeat: chaosHeartbeat, Timeout: chaosTimeout,
		Env: []string{"COUNTDOWN=10ms", "HINT_PENALTY=0"},
	})
	lb := arenatest.StartBalancer(t, nginxFile, nodes)
	return &chaosCluster{pg: pg, db: db, proxy: proxy, nodes: nodes, lb: lb}
}

// chaosFault is one fault the cluster goes through mid-game.
type chaosFault struct {
	name string
	// dueFrom and dueTo spread the rooms' finishes, from the fault's
	// start: during the fault and after it.
	dueFrom, dueTo time.Duration
	// run does the fault and returns once it is over; it sets
	// run.killedAt when it kills nodes.
	run func(t *testing.T, c *chaosCluster, run *chaosRun)
	// sudden is set on a fault that stops a node dead at its start, for
	// the others (a kill, a pause, a cut): what it acknowledged in its
	// last batch interval and had not written yet may be lost, as after
	// a SIGKILL (a paused node's batch, or one sent into the cut, is
	// refused once its rooms have moved).
	sudden bool
}

// chaosRun is one fault's game: its rooms and what the players were told.
type chaosRun struct {
	rooms    []*liveRoom
	rec      *chaosRecord
	players  []*chaosPlayer
	faultAt  time.Time // when the fault began
	killedAt time.Time // when nodes were killed (SIGKILL), zero if none were
	// bound is how far either side of faultAt a sudden fault may lose
	// what was acknowledged: killBound, plus twice the test process's
	// worst lateness within lagSpan of the fault (see lagProbe).
	bound time.Duration
}

// lagSpan is how far either side of a fault the machine's lateness counts
// towards what the fault may lose.
const lagSpan = 2 * time.Second

var chaosFaults = []chaosFault{
	{name: "PostgresStopped20s", dueFrom: 2 * time.Second, dueTo: 28 * time.Second, run: func(t *testing.T, c *chaosCluster, _ *chaosRun) {
		ctx := context.Background()
		require.NoError(t, c.pg.Halt(ctx))
		time.Sleep(20 * time.Second)
		require.NoError(t, c.pg.Resume(ctx))
	}},
	{name: "PostgresRestarted", dueFrom: 2 * time.Second, dueTo: 14 * time.Second, run: func(t *testing.T, c *chaosCluster, _ *chaosRun) {
		ctx := context.Background()
		require.NoError(t, c.pg.Halt(ctx))
		require.NoError(t, c.pg.Resume(ctx))
	}},
	{name: "NodeCutOff25s", sudden: true, dueFrom: 2 * time.Second, dueTo: 33 * time.Second, run: func(t *testing.T, c *chaosCluster, _ *chaosRun) {
		c.proxy.Cut()
		time.Sleep(25 * time.Second)
		c.proxy.Heal()
	}},
	{name: "NodePaused20s", sudden: true, dueFrom: 2 * time.Second, dueTo: 28 * time.Second, run: func(t *testing.T, c *chaosCluster, _ *chaosRun) {
		c.nodes[1].Pause(t)
		time.Sleep(20 * time.Second)
		c.nodes[1].Resume()
	}},
	{name: "TwoNodesKilled", sudden: true, dueFrom: 20 * time.Second, dueTo: 30 * time.Second, run: func(t *testing.T, c *chaosCluster, run *chaosRun) {
		// n1 and n2 die; n3 (behind the proxy, which stays up) takes
		// every room. They come back once the rooms are.
		run.killedAt = time.Now()
		c.nodes[0].Kill()
		c.nodes[1].Kill()
		time.Sleep(roomsBackBound + 2*time.Second)
		c.nodes[0].Restart()
		c.nodes[1].Restart()
	}},
	{name: "RollingRestart", dueFrom: 2 * time.Second, dueTo: 22 * time.Second, run: func(t *testing.T, c *chaosCluster, _ *chaosRun) {
		for _, n := range c.nodes {
			assert.Equal(t, 0, n.Stop(), "SIGTERM: an orderly exit")
			n.Restart()
			time.Sleep(2 * time.Second)
		}
	}},
}

// TestChaos runs each fault against three real nodes over one real
// PostgreSQL behind nginx, while 24 players in 8 co-op and race rooms
// (some through nginx, some straight to a node) play through it: they
// move every tick, send refused moves again, and come back with their
// token through nginx when their socket ends (after a 1001, when its
// hint says, as the web client does). Once play has settled and
// the nodes have stopped, the database must hold every move the players
// were acknowledged (after a SIGKILL, all but those of its last
// moments, and so after a node's pause or cut) and every finish they
// were told of, with its rank; no two results of one race may share a
// rank, and every room must play to its end. After two nodes die, every
// room is played again within 15 s. Without nginx it skips, unless
// E2E_REQUIRED=1; with -short it skips (a minute and more). With
// CHAOS_LOG_DIR set, the nodes' logs are written there.
func TestChaos(t *testing.T) {
	if testing.Short() {
		t.Skip("the chaos tests take a minute and more")
	}
	arenatest.Nginx(t)
	for _, f := range chaosFaults {
		t.Run(f.name, func(t *testing.T) {
			t.Parallel()
			runChaos(t, f)
		})
	}
}

func runChaos(t *testing.T, f chaosFault) {
	ctx := context.Background()
	c := startChaosCluster(t)
	t.Cleanup(func() { saveChaosLogs(t, c, f.name) }) // a failed test's too
	run := &chaosRun{rec: newChaosRecord()}
	openChaosRooms(ctx, t, c, run, f)

	pctx, stop := context.WithCancel(ctx)
	defer stop()
	var wg sync.WaitGroup
	for _, cp := range run.players {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cp.run(pctx, cp.first)
		}()
	}
	time.Sleep(chaosWarmup - lagSpan)
	probe := startLagProbe()
	time.Sleep(lagSpan)
	run.faultAt = time.Now()
	f.run(t, c, run)
	faultEnd := time.Now()
	if wait := time.Until(run.faultAt.Add(lagSpan)); wait > 0 {
		time.Sleep(wait)
	}
	run.bound = killBound + 2*probe.worst(run.faultAt, lagSpan)
	t.Logf("%s: fault over after %s", f.name, faultEnd.Sub(run.faultAt).Round(time.Millisecond))
	finished := make(chan struct{})
	go func() {
		wg.Wait()
		close(finished)
	}()
	select {
	case <-finished:
	case <-time.After(chaosSettle):
		stop()
		<-finished
	}
	settled := time.Since(faultEnd)
	for _, n := range c.nodes {
		assert.Equal(t, 0, n.Stop(), "%s: SIGTERM: an orderly exit", n.Addr())
	}
	checkChaos(ctx, t, c, run, f, settled)
}

// saveChaosLogs writes each node's log to CHAOS_LOG_DIR, when set, as
// NAME-nI.log: what a diagnosis of the run reads.
func saveChaosLogs(t *testing.T, c *chaosCluster, name string) {
	dir := os.Getenv("CHAOS_LOG_DIR")
	if dir == "" {
		return
	}
	for i, n := range c.nodes {
		path := filepath.Join(dir, fmt.Sprintf("%s-n%d.log", name, i+1))
		if err := os.WriteFile(path, []byte(strings.Join(n.Logs(), "\n")+"\n"), 0o644); err != nil {
			t.Errorf("chaos logs: %v", err)
		}
	}
}

// openChaosRooms makes the rooms and has their players join, the first
// straight to a node in turn, which then runs the room (so that every
// node runs rooms when the fault comes), the others through nginx (on the
// node the room hashes to, which relays them to the owner unless it is
// the one), and the first start; it sets each player's schedule (the last
// of each room patient): a room's finish is due in turn between dueFrom
// and dueTo after the fault's start, a racer's a little after the one
// before. It checks that every node runs some of the rooms.
func openChaosRooms(ctx context.Context, t *testing.T, c *chaosCluster, run *chaosRun, f chaosFault) {
	t.Helper()
	for k := range chaosRooms {
		mode := room.ModeCoop
		if k%2 == 1 {
			mode = room.ModeRace
		}
		id, err := createRoom(c.nodes[k%len(c.nodes)], mode)
		require.NoError(t, err)
		via := make([]endpoint, chaosSeats)
		for j := range via {
			via[j] = c.lb
		}
		via[0] = c.nodes[k%len(c.nodes)]
		run.rooms = append(run.rooms, startChaosRoom(ctx, t, id, mode, via))
	}
	owners := roomOwners(ctx, t, c, run)
	t.Logf("%s: the rooms' owners before the fault: %v", f.name, owners)
	for i := range c.nodes {
		require.NotZero(t, owners[fmt.Sprintf("n%d", i+1)], "n%d runs some of the rooms", i+1)
	}
	start := time.Now()
	span := f.dueTo - f.dueFrom
	for k, r := range run.rooms {
		due := chaosWarmup + f.dueFrom + span*time.Duration(k)/time.Duration(chaosRooms-1)
		for j := range r.players {
			d := due
			if r.mode == room.ModeRace {
				d += time.Duration(j) * 600 * time.Millisecond
			}
			stall := stallAfter
			if j == chaosSeats-1 {
				stall = patientStall
			}
			run.players = append(run.players, newChaosPlayer(run.rec, r, j, c.lb, start, d, stall))
		}
	}
}

// roomIDs are the ids of the run's rooms.
func (run *chaosRun) roomIDs() []string {
	ids := make([]string, len(run.rooms))
	for i, r := range run.rooms {
		ids[i] = r.id
	}
	return ids
}

// roomOwners counts the run's rooms by the node that owns them.
func roomOwners(ctx context.Context, t *testing.T, c *chaosCluster, run *chaosRun) map[string]int {
	t.Helper()
	conn, err := pgx.Connect(ctx, c.db)
	require.NoError(t, err)
	defer conn.Close(ctx)
	ids := run.roomIDs()
	rows, err := conn.Query(ctx, `SELECT coalesce(owner, '') FROM rooms WHERE id = ANY($1)`, ids)
	require.NoError(t, err)
	owners, err := pgx.CollectRows(rows, pgx.RowTo[string])
	require.NoError(t, err)
	counts := map[string]int{}
	for _, o := range owners {
		counts[o]++
	}
	return counts
}

// startChaosRoom has a player join room id through each of via and the
// first start it, as startIn does, but sends a join or the start refused
// for now (retry: a node not yet sure of its lease) again a moment later,
// as a client does.
func startChaosRoom(ctx context.Context, t *testing.T, id, mode string, via []endpoint) *liveRoom {
	t.Helper()
	r := &liveRoom{id: id, mode: mode}
	for i, a := range via {
		name := fmt.Sprintf("%s-%d", mode, i)
		for tries := 1; ; tries++ {
			p, err := dialPlayer(ctx, a, id, name, "", 0)
			if err == nil {
				r.players = append(r.players, p)
				break
			}
			require.True(t, tries < 50 && transient(refusalCode(err)), "%v", err)
			time.Sleep(200 * time.Millisecond)
		}
	}
	host := r.players[0]
	for tries := 1; host.phase != protocol.PhaseRunning; tries++ {
		require.NoError(t, host.send(ctx, map[string]any{"type": "start"}))
		f, err := host.until(ctx, func(f frame) bool { return host.phase == protocol.PhaseRunning || f.Type == protocol.TypeError })
		require.NoError(t, err)
		if f.Type == protocol.TypeError {
			require.True(t, tries < 50 && transient(refusalCode(fmt.Errorf("%s", f.data))), "start refused: %s", f.data)
			time.Sleep(200 * time.Millisecond)
		}
	}
	r.awaitRunning(ctx, t)
	return r
}

// storedEvent is a row of room_events.
type storedEvent struct {
	typ, player string
	data        []byte
}

// checkChaos compares what the players were told with what the database
// holds, logs the figures, and asserts the promises.
func checkChaos(ctx context.Context, t *testing.T, c *chaosCluster, run *chaosRun, f chaosFault, settled time.Duration) {
	t.Helper()
	name := f.name
	conn, err := pgx.Connect(ctx, c.db)
	require.NoError(t, err)
	defer conn.Close(ctx)
	ids := run.roomIDs()
	// The events as the store reads them back: a room's flush is one row
	// of room_events, holding each of its events.
	st, err := postgres.Open(ctx, c.db)
	require.NoError(t, err)
	defer st.Close()
	events := map[string]storedEvent{}
	for _, id := range ids {
		evs, err := st.Events(ctx, id, 0, 0)
		require.NoError(t, err)
		for _, e := range evs {
			events[fmt.Sprintf("%s/%d", id, e.Seq)] = storedEvent{typ: e.Type, player: e.PlayerID, data: e.Data}
		}
	}
	results := map[string]int{} // room/player → the rank stored
	byRank := map[string]int{}
	rows, err := conn.Query(ctx, `SELECT room_id, player_id, room_rank, mode FROM results WHERE room_id = ANY($1)`, ids)
	require.NoError(t, err)
	dupStored := 0
	for rows.Next() {
		var roomID, player, mode string
		var rank int
		require.NoError(t, rows.Scan(&roomID, &player, &rank, &mode))
		results[roomID+"/"+player] = rank
		if mode == room.ModeRace {
			byRank[fmt.Sprintf("%s/%d", roomID, rank)]++
			if byRank[fmt.Sprintf("%s/%d", roomID, rank)] == 2 {
				dupStored++
			}
		}
	}
	require.NoError(t, rows.Err())

	rec := run.rec
	rec.mu.Lock()
	acks, finishes := append([]chaosAck(nil), rec.acks...), append([]chaosFinish(nil), rec.finishes...)
	tally := fmt.Sprint(rec.tally, rec.samples)
	reconnects, stalls, resyncs, noops := rec.reconnects, rec.stalls, rec.resyncs, rec.noops
	rec.mu.Unlock()

	// Acknowledged moves: each is stored at its seq, as the mover's move
	// with its id, cell and digit.
	var lost, lostInBound []string
	for _, a := range acks {
		if storedAck(events[fmt.Sprintf("%s/%d", a.room, a.seq)], a) {
			continue
		}
		what := fmt.Sprintf("room %s seq %d: %s's move %s (%d at %d), acknowledged %s after the fault began",
			a.room, a.seq, a.player, a.id, a.digit, a.cell, a.at.Sub(run.faultAt).Round(time.Millisecond))
		if f.sudden && a.at.After(run.faultAt.Add(-run.bound)) && a.at.Before(run.faultAt.Add(run.bound)) {
			lostInBound = append(lostInBound, what)
			continue
		}
		lost = append(lost, what)
	}

	// Finishes told: a racer's, with its rank, and the team's, for each
	// player told of it, are stored.
	type finisher struct{ room, player string }
	announced := map[finisher]map[int]bool{} // by finisher, the ranks told
	var unstored, wrongRank []string
	for _, f := range finishes {
		if f.player == "" { // the team's: each teammate's result
			k := finisher{f.room, "team"}
			if announced[k] == nil {
				announced[k] = map[int]bool{}
			}
			announced[k][1] = true
			if _, ok := results[f.room+"/"+f.heardBy]; !ok {
				unstored = append(unstored, fmt.Sprintf("room %s: the team's finish, told to %s", f.room, f.heardBy))
			}
			continue
		}
		k := finisher{f.room, f.player}
		if announced[k] == nil {
			announced[k] = map[int]bool{}
		}
		announced[k][f.rank] = true
		rank, ok := results[f.room+"/"+f.player]
		switch {
		case !ok:
			unstored = append(unstored, fmt.Sprintf("room %s: %s's finish, rank %d, told to %s", f.room, f.player, f.rank, f.heardBy))
		case rank != f.rank:
			wrongRank = append(wrongRank, fmt.Sprintf("room %s: %s told rank %d, stored rank %d", f.room, f.player, f.rank, rank))
		}
	}
	stored := 0
	for k, ranks := range announced {
		if k.player == "team" {
			if anyResult(results, k.room) {
				stored++
			}
			continue
		}
		if rank, ok := results[k.room+"/"+k.player]; ok && ranks[rank] {
			stored++
		}
	}
	// One rank a place: no two finishers of a race told the same rank,
	// no finisher told two.
	var dupTold []string
	told := map[string]string{} // room/rank → finisher
	for k, ranks := range announced {
		if k.player == "team" {
			continue
		}
		if len(ranks) > 1 {
			dupTold = append(dupTold, fmt.Sprintf("room %s: %s told ranks %v", k.room, k.player, ranks))
		}
		for rank := range ranks {
			key := fmt.Sprintf("%s/%d", k.room, rank)
			if other, ok := told[key]; ok && other != k.player {
				dupTold = append(dupTold, fmt.Sprintf("room %s: %s and %s both told rank %d", k.room, other, k.player, rank))
			}
			told[key] = k.player
		}
	}

	// Play: the longest a room went without an acknowledged move, and
	// (after a SIGKILL) how soon each room live then had one again.
	var silence, back time.Duration
	var silent string
	var notBack []string
	for _, r := range run.rooms {
		ra := rec.roomAcks(r.id)
		for i := 1; i < len(ra); i++ {
			if d := ra[i].at.Sub(ra[i-1].at); d > silence {
				silence = d
				silent = fmt.Sprintf(" (%s room %s, from %s after the fault began)", r.mode, r.id, ra[i-1].at.Sub(run.faultAt).Round(time.Millisecond))
			}
		}
		if run.killedAt.IsZero() || len(ra) == 0 || !ra[len(ra)-1].at.After(run.killedAt) {
			continue
		}
		for _, a := range ra {
			if a.at.After(run.killedAt) {
				d := a.at.Sub(run.killedAt)
				back = max(back, d)
				if d > roomsBackBound {
					notBack = append(notBack, fmt.Sprintf("room %s: first move acknowledged %s after the kill", r.id, d.Round(time.Millisecond)))
				}
				break
			}
		}
	}
	var unfinished []string
	for _, cp := range run.players {
		if !cp.done {
			unfinished = append(unfinished, fmt.Sprintf("%s in room %s", cp.name, cp.r.id))
		}
	}

	backAfter := ""
	if !run.killedAt.IsZero() {
		backAfter = fmt.Sprintf("every room back after the kill within %s; ", back.Round(time.Millisecond))
	}
	t.Logf("%s: %d moves acknowledged, %d lost (%d more within the SIGKILL bound); %d finishes announced, %d stored; %d ranks told twice, %d stored twice; "+
		"%d players unfinished %s after the fault; longest silence of a room %s%s; %s"+
		"%d reconnects, %d stalls, %d resyncs, %d no-op echoes; %s",
		name, len(acks), len(lost), len(lostInBound), len(announced), stored, len(dupTold), dupStored,
		len(unfinished), settled.Round(time.Second), silence.Round(time.Millisecond), silent, backAfter,
		reconnects, stalls, resyncs, noops, tally)
	assert.Empty(t, first(lost, 20), "%d acknowledged moves not stored", len(lost))
	assert.Empty(t, first(unstored, 20), "finishes announced but not stored")
	assert.Empty(t, first(wrongRank, 20), "finishes stored with another rank than announced")
	assert.Empty(t, first(dupTold, 20), "ranks told twice in a race")
	assert.Zero(t, dupStored, "ranks stored twice in a race")
	assert.Empty(t, notBack, "rooms played again within %s of the kill", roomsBackBound)
	assert.Empty(t, first(unfinished, 20), "every room plays to its end after the fault")
	if len(lostInBound) > 0 {
		t.Logf("%s: lost within the SIGKILL bound (%s either side of the fault's start: %s, and twice the test's worst lateness then): %s",
			name, run.bound, killBound, strings.Join(lostInBound, "; "))
	}
}

// storedAck reports whether e is the acknowledged move a: the mover's,
// under the id it was sent with (stored with the event), with its cell
// and digit.
func storedAck(e storedEvent, a chaosAck) bool {
	if e.typ != protocol.TypeMove || e.player != a.player {
		return false
	}
	var m struct {
		ID    string `json:"id"`
		Cell  int    `json:"cell"`
		Digit int    `json:"digit"`
	}
	if json.Unmarshal(e.data, &m) != nil {
		return false
	}
	return m.ID == a.id && m.Cell == a.cell && m.Digit == a.digit
}

func anyResult(results map[string]int, roomID string) bool {
	for k := range results {
		if strings.HasPrefix(k, roomID+"/") {
			return true
		}
	}
	return false
}

// first is up to n of items, sorted, for a failure's message.
func first(items []string, n int) []string {
	sort.Strings(items)
	return items[:min(n, len(items))]
}
