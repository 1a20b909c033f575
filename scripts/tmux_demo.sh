#!/usr/bin/env bash
# Play a few moves in real terminals through tmux and print what the screens show.
#
# Starts a server on 127.0.0.1 (a free port), opens two `gomoku play` clients in a
# detached tmux session (alice and bob, 80x24 each, two --profiles in one config
# dir, connected to the ws:// address the server printed), has alice create a room
# and bob join it from the lobby, plays a few moves with the keyboard (cursor keys +
# Enter for alice, typed points for bob), chats, then prints both captured screens.
# Everything it started is stopped on exit. (tests/test_client_tmux.py does the same
# with checks.)
#
# Usage: bash scripts/tmux_demo.sh [--glyphs ascii]
set -euo pipefail
cd "$(dirname "$0")/.."

command -v tmux >/dev/null || { echo "tmux_demo: tmux is not installed" >&2; exit 2; }
PY=.venv/bin/python
GLYPHS=${2:-unicode}
[ "${1:-}" = "--glyphs" ] || GLYPHS=unicode

PORT=$("$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
WORK=$(mktemp -d)
SESSION="gomoku-demo-$$"

"$PY" -m server --host 127.0.0.1 --port "$PORT" --bots 0 --ephemeral >"$WORK/server.out" 2>"$WORK/server.log" &
SERVER_PID=$!
cleanup() {
    tmux kill-session -t "$SESSION" 2>/dev/null || true
    kill "$SERVER_PID" 2>/dev/null || true
    wait "$SERVER_PID" 2>/dev/null || true
    rm -rf "$WORK"
}
trap cleanup EXIT

for _ in $(seq 50); do   # wait for the server to listen
    "$PY" - "$PORT" <<'EOF' && break
import socket, sys
try:
    socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=0.2).close()
except OSError:
    sys.exit(1)
EOF
    sleep 0.1
done

ADDRESS=$(grep -m1 -o 'ws://[^ ]*' "$WORK/server.out")  # what the server printed
client() {  # client NAME: the shell command that runs one client
    echo "GOMOKU_CONFIG_DIR=$WORK/config TERM=xterm-256color $PY -m client.cli play $ADDRESS --profile $1 --name $1 --glyphs $GLYPHS"
}
tmux new-session -d -s "$SESSION" -x 80 -y 24 -n alice "$(client alice)"
tmux new-window -t "$SESSION" -n bob "$(client bob)"
tmux resize-window -t "$SESSION:bob" -x 80 -y 24 2>/dev/null || true

keys() { tmux send-keys -t "$SESSION:$1" "${@:2}"; sleep 0.6; }
type_text() { tmux send-keys -t "$SESSION:$1" -l "$2"; sleep 0.3; }

sleep 2                       # both clients connect and show the lobby
keys alice n                  # new room dialog
keys alice Enter              # create with the defaults
sleep 0.5
keys bob Enter                # join the highlighted room from the lobby
sleep 0.5
keys alice Enter              # the room's creator, if black, plays the centre h8 with Enter
type_text bob "h9"; keys bob Enter          # a typed point: h9 Enter plays h9
keys alice Right; keys alice Enter          # i8 with the cursor
type_text bob "g9"; keys bob Enter
type_text alice "j9"; keys alice Enter
type_text alice "hello bob"; keys alice Enter   # anything that is not a point is chat
sleep 1

echo "=== alice's terminal (tmux capture-pane) ==="
tmux capture-pane -p -t "$SESSION:alice"
echo "=== bob's terminal ==="
tmux capture-pane -p -t "$SESSION:bob"
