"""The browser client in a real headless Chromium (Debian's, driven by Playwright),
against a real server started by each test on a free 127.0.0.1 port.

People play by clicking, tapping and typing, as a person would: two browsers play a
game to the end while a third watches it; a browser plays the terminal protocol client
(MessagePack) in one room; a reload and a dropped connection in the middle of a game
are caught up; a renju game shows Black's forbidden point and refuses a click on it;
a phone-size viewport plays by tap; double clicks act once; the end of a game (its
clocks, an opponent gone, a game that ended while away) reads right. Screenshots of
the lobby, a game in progress and a finished game at 1280x800 and 360x740 go to
``screenshots/`` (see the README).

Run them alone with ``pytest -m browser``. One browser serves the whole module.
"""

from __future__ import annotations

import asyncio
import collections
import random
import re
from collections.abc import AsyncIterator, Coroutine
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from playwright.async_api import (
    Browser,
    BrowserContext,
    Dialog,
    FloatRect,
    Locator,
    Page,
    Route,
    ViewportSize,
    WebSocket,
    WebSocketRoute,
    async_playwright,
    expect,
)
from server_fixtures import TestClient, make_config
from text_samples import CHAT_ACCEPTED, CHAT_REFUSED, NAMES_ACCEPTED, NAMES_REFUSED
from websockets.asyncio.client import connect as ws_connect
from websockets.typing import Subprotocol
from worker_fixtures import ai_config, eventually, worker_config

from client.present import TimeControlError, format_clock, parse_time_control
from client.state.words import reason_words
from engine import Board, Rule
from engine.types import Color, Point, Reason
from protocol import messages as m
from protocol.events import (
    Answered,
    ChatPosted,
    Chose,
    GameOver,
    GameStarted,
    Moved,
    Offered,
    PlayerJoined,
    Presence,
    Rematch,
    SpectatorCount,
    Undone,
)
from protocol.text import chat_problem, name_problem
from protocol.values import TimeControl
from server.app import GomokuServer
from server.config import Timers
from server.connection import Connection
from server.game import GameRules
from worker.control import AiWorker
from worker.thinker import Thinker

# One xdist process runs them all (scripts/test, --dist loadgroup): one Chromium launch.
pytestmark = [
    pytest.mark.browser,
    pytest.mark.asyncio(loop_scope="module"),
    pytest.mark.xdist_group("browser"),
]

CHROMIUM = Path("/usr/bin/chromium")
HAVE_CHROMIUM = CHROMIUM.exists()
SHOTS = Path(__file__).resolve().parent.parent / "screenshots"
STATIC = Path(__file__).resolve().parent.parent / "web" / "static"
DESKTOP: ViewportSize = {"width": 1280, "height": 800}
CHAT_LIMIT_SAID = re.compile(r"^Too many chat lines: 5 in 10 s at most; the next in \d+ s\.$")
PHONE: ViewportSize = {"width": 360, "height": 740}
BIG_PHONE: ViewportSize = {"width": 390, "height": 844}
QUIET = [  # no background traffic to anywhere: the tests talk to 127.0.0.1 only
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-default-apps",
    "--disable-sync",
    "--no-first-run",
    "--disable-dev-shm-usage",
]
WAIT_MS = 10_000
FOCUSED_POINT = "() => document.activeElement?.getAttribute('data-point')"
FOCUSED_TAG = "() => document.activeElement?.tagName"


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def browser() -> AsyncIterator[Browser]:
    """One headless Chromium for the module (scripts/test installs Debian's package)."""
    assert HAVE_CHROMIUM, "no /usr/bin/chromium: scripts/test installs it (apt-get)"
    async with async_playwright() as playwright:
        launched = await playwright.chromium.launch(
            executable_path=str(CHROMIUM),
            chromium_sandbox=False,
            args=QUIET,
            # Playwright turns the back/forward cache off; people's browsers have it on,
            # and a page kept there must not keep its player present (a test below).
            ignore_default_args=["--disable-back-forward-cache"],
        )
        yield launched
        await launched.close()


def ai_overrides() -> dict[str, Any]:
    """The settings of a server that accepts the test AI workers' bot key."""
    config = ai_config()
    return {"bot_keys": config.bot_keys, "bots": config.bots}


@asynccontextmanager
async def game_server(**overrides: Any) -> AsyncIterator[GomokuServer]:
    server = GomokuServer(make_config(**overrides))
    await server.start()
    try:
        yield server
    finally:
        await server.stop()


class People:
    """The browser pages (each its own context: its own localStorage) and protocol
    clients of one test, all closed at the end; page errors fail the test."""

    def __init__(self, browser: Browser, server: GomokuServer) -> None:
        self.browser = browser
        self.server = server
        self.contexts: list[BrowserContext] = []
        self.clients: list[TestClient] = []
        self.errors: list[str] = []

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.port}/"

    async def page(
        self,
        name: str,
        *,
        phone: bool = False,
        hash: str = "",
        same_as: Page | None = None,
        viewport: ViewportSize | None = None,
    ) -> Page:
        """A browser at the server's page, named ``name``, connected; ``same_as``: another
        device of that page's player (its stored name and token); ``viewport``: a size
        other than DESKTOP's or PHONE's."""
        options: dict[str, Any] = {"viewport": viewport or (PHONE if phone else DESKTOP)}
        if phone:
            options |= {"has_touch": True, "is_mobile": True, "device_scale_factor": 1}
        if same_as is not None:
            options["storage_state"] = await same_as.context.storage_state()
        context = await self.browser.new_context(**options)
        self.contexts.append(context)
        page = await context.new_page()
        page.set_default_timeout(WAIT_MS)
        page.on("pageerror", lambda error: self.errors.append(f"{name}: {error}"))
        page.on("websocket", lambda ws: record_frames(page, ws))
        page.on("close", lambda _: forget_frames(page))
        await page.goto(self.url + hash)
        if same_as is None:
            await page.fill("#name-input", name)
            await page.press("#name-input", "Enter")
        await expect(page.locator("#conn")).to_have_attribute("data-state", "online")
        return page

    async def client(self, name: str, token: str | None = None) -> TestClient:
        """A terminal-style protocol client (MessagePack, no subprotocol); ``token``: an
        earlier client's player, back."""
        # No limit on frames received and not read: a client that reads only what a test
        # needs would otherwise stop reading the socket at 16, and its close at the end
        # wait 10 s for a close frame behind them.
        url = f"ws://127.0.0.1:{self.server.port}/"
        ws = await ws_connect(url, compression=None, max_queue=None)
        client = TestClient(ws)
        self.clients.append(client)
        await client.hello(name, token)
        return client

    def connections_of(self, name: str) -> list[Connection]:
        """The server's connections of the page (or client) named ``name``."""
        return [c for c in self.server.connections if c.identity and c.identity.name == name]

    def connection_of(self, name: str) -> Connection:
        """The server's one connection of the page (or client) named ``name``: to cut or
        stall its network from the server's side."""
        (only,) = self.connections_of(name)
        return only

    async def ann_against_hal(
        self, *, phone: bool = False, **room_settings: Any
    ) -> tuple[Page, TestClient, str]:
        """ann's page and hal (a protocol client) in a game hal opened as White (with
        ``room_settings``: a rule, a clock): ann's page, hal, and the room, once the
        game has started."""
        hal = await self.client("hal")
        room = (await hal.create(seat="white", **room_settings)).room.id
        ann = await self.page("ann", phone=phone, hash=f"#/room/{room}")
        await hal.until_event(GameStarted)
        return ann, hal, room

    async def close(self) -> None:
        for client in self.clients:
            await client.ws.close()
        for context in self.contexts:
            await context.close()
        assert not self.errors, self.errors


@asynccontextmanager
async def people(browser: Browser, **overrides: Any) -> AsyncIterator[People]:
    async with game_server(**overrides) as server:
        crowd = People(browser, server)
        try:
            yield crowd
        finally:
            await crowd.close()


@asynccontextmanager
async def people_and_an_ai(browser: Browser, thinker: Thinker) -> AsyncIterator[People]:
    """People on a server with AI seats (``ai_overrides``) and one AI worker connected."""
    async with game_server(**ai_overrides()) as server:
        worker = AiWorker(worker_config(server, seats=4), thinker=thinker)
        running = asyncio.create_task(worker.run())
        await asyncio.wait_for(worker.ready.wait(), 10)
        crowd = People(browser, server)
        try:
            yield crowd
        finally:
            await crowd.close()
            await worker.stop()
            await asyncio.wait_for(running, 10)


async def play_the_ai_as_black(page: Page, level: str) -> None:
    """From the lobby's New room form: a room where the page's player is Black and an
    AI of ``level`` sits down as White."""
    await page.select_option("#create-form select[name=seat]", "black")
    await page.select_option("#create-form select[name=level]", level)
    await page.click("#play-ai-button")
    await expect(page.locator("#name-white")).to_contain_text(f"AI {level}")


async def shot(page: Page, name: str) -> None:
    SHOTS.mkdir(exist_ok=True)
    await page.screenshot(path=str(SHOTS / f"{name}.png"))


WIRE: dict[Page, collections.deque[str]] = {}
"""The last frames each page's WebSocket sent (">") and received ("<"), for failures."""


def record_frames(page: Page, ws: WebSocket) -> None:
    wire = WIRE.setdefault(page, collections.deque(maxlen=60))
    ws.on("framesent", lambda data: wire.append(f"> {data!s:.400}"))
    ws.on("framereceived", lambda data: wire.append(f"< {data!s:.400}"))


def forget_frames(page: Page) -> None:
    WIRE.pop(page, None)


async def hal_sees(hal: TestClient, name: str) -> None:
    """Wait until hal's connection has the stone ``name`` played (passing his own stones
    and any other that come first)."""
    while (await hal.until_event(Moved)).point != name:
        pass


async def moves_shown(page: Page, count: int) -> None:
    try:
        await expect(page.locator("#moves li")).to_have_count(count)
    except AssertionError as exc:  # say what the page held (seen twice: 4 moves for 2)
        held = await page.evaluate(
            "JSON.stringify([...gomoku.rooms.values()].map((r) => "
            "({id: r.id, seq: r.seq, state: r.state, moves: r.moves, log: r.log})))"
        )
        frames = "\n".join(WIRE.get(page, ()))
        raise AssertionError(f"{exc}\nthe page's rooms: {held}\nlast frames:\n{frames}") from None


def point(page: Page, name: str) -> Any:
    """A point of the board on show (the room's, or the review's)."""
    return page.locator(f'[data-point="{name}"] >> visible=true')


async def tap_move(page: Page, name: str) -> None:
    """A move on a phone: the first tap previews the stone, Place confirms it."""
    await point(page, name).tap()
    await expect(page.locator("#confirm-move")).to_have_text(f"Place at {name}")
    await page.locator("#confirm-move").tap()


async def box(locator: Locator) -> FloatRect:
    """Where an element shows on the screen (it must show)."""
    found = await locator.bounding_box()
    assert found is not None, f"{locator} does not show"
    return found


def overlap(a: FloatRect, b: FloatRect) -> bool:
    return (
        a["x"] < b["x"] + b["width"]
        and b["x"] < a["x"] + a["width"]
        and a["y"] < b["y"] + b["height"]
        and b["y"] < a["y"] + a["height"]
    )


async def room_of(page: Page) -> str:
    await expect(page).to_have_url(re.compile(r"#/(room|watch)/"))
    return page.url.rsplit("/", 1)[-1]


def clock_text(ms: int) -> str:
    """A clock as the page shows it (whole seconds, rounded up), under an hour."""
    seconds = -(-ms // 1000)
    return f"{seconds // 60}:{seconds % 60:02d}"


async def caught_up(page: Page) -> None:
    """Wait until the server has answered all the page sent so far (it reads a
    connection's messages in order): a refusal of any of them has come by then."""
    await page.evaluate("gomoku.conn.request({type: 'lobby_watch', on: true})")


async def rooms_opened(crowd: People, page: Page) -> list[str]:
    """The open rooms the page's player created (the 5-room cap counts them), once the
    server has answered all the page sent."""
    await caught_up(page)
    player = await page.evaluate("gomoku.me.player")
    return sorted(await crowd.server.store.owned_rooms(player))


async def ann_plays_hal(crowd: People) -> tuple[Page, TestClient, str]:
    """ann's page creates a room as Black, hal (a protocol client) sits down in it: her
    page, hal, and the room's id."""
    ann = await crowd.page("ann")
    await ann.select_option("#create-form select[name=seat]", "black")
    await ann.click("#create-button")
    room = await room_of(ann)
    hal = await crowd.client("hal")
    await hal.join(room)
    return ann, hal, room


async def two_stones_down(crowd: People) -> tuple[Page, TestClient, str]:
    """ann's page against hal (:meth:`People.ann_against_hal`) with her h8 and his a1 on
    her board: her page, hal, and the room."""
    ann, hal, room = await crowd.ann_against_hal()
    await point(ann, "h8").click()
    await hal.until_event(Moved)
    await hal.move(room, "a1")
    await moves_shown(ann, 2)
    return ann, hal, room


# --- the tests --------------------------------------------------------------------------


async def test_two_browsers_play_to_the_end_while_a_third_watches(browser: Browser) -> None:
    """ann (desktop) creates a rated room with a clock; bob (a phone), after trying and
    cancelling a quick match, joins it from the lobby and plays by tap; cy watches.
    Every move reaches all three, the clocks tick, and the end shows the winner, the
    winning five and both rating changes to everyone; then a rematch is agreed."""
    async with people(browser) as crowd:
        ann = await crowd.page("ann")
        bob = await crowd.page("bob", phone=True)
        cy = await crowd.page("cy")
        # bob tries quick match first: the wait shows and counts; he cancels it.
        await bob.locator("#quick-button").tap()
        waiting = bob.locator(".queue-status")
        await expect(waiting).to_contain_text("Waiting for an opponent: 0:0")
        await expect(bob.locator("#quick-button")).to_be_disabled()
        await bob.locator("#cancel-queue").tap()
        await expect(waiting).to_be_hidden()
        await expect(bob.locator("#quick-button")).to_be_enabled()
        await ann.fill("#create-form input[name=time]", "5+3")
        await ann.select_option("#create-form select[name=seat]", "black")
        await ann.check("#create-form input[name=rated]")
        await ann.click("#create-button")
        room = await room_of(ann)
        # Rated: no AI seat to offer (the server would refuse it).
        waits = "Waiting for an opponent: share the link."
        await expect(ann.locator("#status")).to_have_text(waits)
        row = f'tr[data-room="{room}"]'
        await expect(bob.locator(row)).to_be_visible()
        await expect(cy.locator(row)).to_contain_text("ann (1500?)")  # a new player's: provisional
        await shot(bob, "lobby-360x740")
        await shot(cy, "lobby-1280x800")
        await bob.locator(f"{row} a.join").tap()
        await expect(bob.locator("#name-white")).to_contain_text("bob")
        await cy.click(f"{row} a.watch")
        await expect(cy.locator("#status")).to_contain_text("ann to move")
        await expect(ann.locator("#status")).to_have_text("Your move: Black.")
        for page in (ann, bob, cy):  # bob's join started it: his page says so too
            await expect(page.locator("#chat-log")).to_contain_text("The game has started")

        black, white = ["h8", "h9", "h10", "h11", "h12"], ["a1", "a2", "a3", "a4"]
        for n in range(9):
            if n % 2 == 0:
                await point(ann, black[n // 2]).click()
            else:
                await tap_move(bob, white[n // 2])
            for page in (ann, bob, cy):
                await moves_shown(page, n + 1)
            if n == 0:  # White's clock runs now, on every page
                before = await cy.locator("#clock-white").inner_text()
                await expect(cy.locator("#clock-white")).not_to_have_text(before)
                await expect(cy.locator("#clock-white")).to_have_class(re.compile("running"))
            if n == 5:
                await shot(ann, "game-1280x800")
                await shot(bob, "game-360x740")
        played = [p for pair in zip(black, [*white, ""], strict=True) for p in pair if p]
        assert await cy.locator("#moves li").all_inner_texts() == played
        for page, words in ((ann, "You win."), (bob, "You lose: ann wins."), (cy, "ann wins.")):
            await expect(page.locator("#result")).to_contain_text(
                "Black wins with five in a row from h8 to h12"
            )
            await expect(page.locator("#result .winner")).to_have_text(words)
            await expect(point(page, "h12")).to_have_attribute(
                "aria-label", "h12, black stone, last move, winning five"
            )
            changes = page.locator("#result .rating-change")
            after_one_game = r"1\d{3}\?"  # new players' ratings are still provisional
            await expect(changes.nth(0)).to_have_text(
                re.compile(rf"^ann: 1500 → {after_one_game} \(\+\d+\)$")
            )
            await expect(changes.nth(1)).to_have_text(
                re.compile(rf"^bob: 1500 → {after_one_game} \(-\d+\)$")
            )
            after = (await changes.nth(0).inner_text()).split(" → ")[1].split(" ")[0]
            await expect(page.locator("#name-black")).to_contain_text(f"ann {after}")
        await expect(bob.locator("#offer-rematch")).to_be_visible()
        await shot(ann, "finished-1280x800")
        await shot(bob, "finished-360x740")

        # A rematch: bob proposes, ann accepts; both go to the new room, colours swapped,
        # and the watcher follows them there.
        await bob.locator("#offer-rematch").tap()
        await expect(ann.locator(".offer")).to_contain_text(
            "bob offers a rematch (colours swapped)."
        )
        await ann.click("#accept")
        for page in (ann, bob):
            await expect(page).not_to_have_url(re.compile(room))
            await expect(page.locator("#name-black")).to_contain_text("bob")
        await expect(bob.locator("#status")).to_have_text("Your move: Black.")
        await expect(cy).not_to_have_url(re.compile(room))
        await expect(cy.locator("#name-black")).to_contain_text("bob")
        await expect(cy.locator("#status")).to_contain_text("bob to move")
        for page in (ann, bob, cy):  # the last game's result went with its room's log
            await expect(page.locator("#chat-log li").first).to_have_text(
                re.compile(rf"^Rematch of {room}\. Last game: Black wins with five in a row")
            )


async def test_a_browser_plays_the_terminal_protocol_client(browser: Browser) -> None:
    """hal speaks MessagePack like the terminal client, ann's browser JSON: hal creates
    the room, ann opens its link and plays Black with the mouse and the keyboard; each
    side sees the other's moves, and both see the end."""
    async with people(browser) as crowd:
        hal = await crowd.client("hal")
        room = (await hal.create(seat="white")).room.id
        ann = await crowd.page("ann", hash=f"#/room/{room}")
        await expect(ann.locator("#name-black")).to_contain_text(re.compile(r"ann .*\(you\)"))
        assert (await hal.event(PlayerJoined, room)).name == "ann"
        await hal.event(GameStarted, room)
        # The keyboard: the cursor starts on the centre; Enter plays, arrows move it.
        await point(ann, "h8").focus()
        await ann.keyboard.press("Enter")
        assert (await hal.event(Moved, room)).point == "h8"
        await hal.move(room, "a1")
        await hal.event(Moved, room)
        await moves_shown(ann, 2)
        await ann.keyboard.press("ArrowUp")
        await ann.keyboard.press("Enter")
        assert (await hal.event(Moved, room)).point == "h9"
        for mine, theirs in (("h10", "a2"), ("h11", "a3")):
            await hal.move(room, theirs)
            await hal.event(Moved, room)
            await expect(ann.locator("#status")).to_have_text("Your move: Black.")
            await point(ann, mine).click()
            assert (await hal.event(Moved, room)).point == mine
        await hal.move(room, "a4")
        await hal.event(Moved, room)
        await expect(ann.locator("#status")).to_have_text("Your move: Black.")
        await point(ann, "h12").click()
        assert (await hal.event(Moved, room)).point == "h12"
        over = await hal.event(GameOver, room)
        assert (over.winner, over.reason) == ("black", "five")
        await expect(ann.locator("#result")).to_contain_text("Black wins")

        # The finished game: its record downloads as the server exports it, and the
        # review steps through it; the profile lists it.
        async with ann.expect_download() as info:
            await ann.click("#download-psq")
        download = await info.value
        assert download.suggested_filename == f"ann-vs-hal-{room}.psq"  # whose game it is
        named = await ann.evaluate(
            """async () => {
                const records = await import("/js/records.js");
                return [records.recordFileName("r-1", "json", "José María", "a/b: c?"),
                        records.recordFileName("r-1", "psq", "..", "hal")];
            }"""
        )
        assert named == ["José_María-vs-a_b_c-r-1.json", "r-1.psq"]  # nothing a path reads
        await hal.send(m.GetRecord(game=room, format="psq"))
        exported = (await hal.expect(m.Record)).text
        saved = Path(await download.path())
        assert await asyncio.to_thread(saved.read_text) == exported.rstrip("\n") + "\n"
        # A move list too, and a line that says what PSQ and a move list do not keep.
        async with ann.expect_download() as info:
            await ann.click("#download-moves")
        download = await info.value
        assert download.suggested_filename == f"ann-vs-hal-{room}.txt"
        listed = await asyncio.to_thread(Path(await download.path()).read_text)
        assert listed == "h8 a1 h9 a2 h10 a3 h11 a4 h12\n"
        await expect(ann.locator("#download-note")).to_contain_text(
            "PSQ and a move list keep the moves only"
        )
        await ann.click("#review")
        step = ann.locator("#review-step")
        await expect(step).to_have_text("Move 9 of 9: h12 (Black)")
        steps = await ann.locator("#review-forward").bounding_box()
        assert steps is not None  # in the window, not under the board's bottom edge
        assert steps["y"] + steps["height"] <= ann.viewport_size["height"]  # type: ignore[index]
        await ann.keyboard.press("ArrowLeft")
        await expect(step).to_have_text("Move 8 of 9: a4 (White)")
        await expect(point(ann, "a4")).to_have_attribute("aria-label", "a4, white stone, last move")
        await expect(point(ann, "h12")).to_have_attribute("aria-label", "h12, empty")
        await ann.click("#review-back")
        await expect(step).to_have_text("Move 7 of 9: h11 (Black)")
        await ann.click("header nav >> text=Profile")
        await expect(ann.locator("#profile-view h1")).to_have_text("ann")
        await expect(ann.locator("#profile-view .games li")).to_contain_text(
            "ann (Black) \u2013 hal (White)"
        )
        await ann.click("header nav >> text=Leaderboard")
        await expect(ann.locator("#leaderboard-view tbody").first).to_contain_text(
            "Nobody established yet."
        )


async def test_a_long_games_review_shows_its_current_move_in_two_columns(
    browser: Browser,
) -> None:
    """A 30-stone game's review opens at its last move, shown in the move list (the list
    showed its first 21 stones, the current one out of sight), and lists Black's stones
    in one column and White's in the other (as many columns as fit swapped them from row
    to row); stepping back to the first stone brings it into sight."""
    async with people(browser) as crowd:
        ann = await crowd.client("ann")
        hal = await crowd.client("hal")
        room = (await ann.create(seat="black")).room.id
        await hal.join(room)
        letters = "abcdefghijklmno"
        for n in range(30):  # stones two apart: no two touch, no line is made
            col, row = 2 * (n // 2 % 7) + n % 2, 2 * (n // 14) + 1 + n % 2
            await (ann if n % 2 == 0 else hal).move(room, f"{letters[col]}{row}")
            await ann.until_event(Moved)
        await hal.send(m.Resign(room=room))
        await ann.until_event(GameOver)
        cy = await crowd.page("cy")
        await cy.goto(f"{crowd.url}#/review/{room}")
        step = cy.locator("#review-step")
        await expect(step).to_contain_text("Move 30 of 30")
        facts = "freestyle · 15\u00d715 · free · no clock · Black wins by resignation"
        await expect(cy.locator("#review-view p").first).to_have_text(facts)
        await expect(cy.locator("#review-view h1")).to_have_text("ann (Black) \u2013 hal (White)")
        items = cy.locator(".review-moves li")
        assert await items.nth(29).evaluate(IN_ITS_LISTS_SIGHT)
        await shot(cy, "review-long-game")
        xs = [await items.nth(i).evaluate("li => li.getBoundingClientRect().x") for i in range(6)]
        assert xs[0] == xs[2] == xs[4] < xs[1] == xs[3] == xs[5]
        await cy.keyboard.press("Home")
        await expect(step).to_contain_text("Move 0 of 30")
        await cy.keyboard.press("ArrowRight")
        await expect(step).to_contain_text("Move 1 of 30")
        assert await items.nth(0).evaluate(IN_ITS_LISTS_SIGHT)


IN_ITS_LISTS_SIGHT = """li => {
  const list = li.parentElement.getBoundingClientRect(), at = li.getBoundingClientRect();
  return at.top >= list.top - 1 && at.bottom <= list.bottom + 1;
}"""
"""Whether a list item shows within its list's scrolled box (JavaScript, for evaluate)."""


async def test_a_server_restart_is_said_as_one_until_it_is_back(browser: Browser) -> None:
    """The server stops (1001): the badge says it is restarting (its title: the server),
    also after the tries that find nobody listening, and Online once a server answers."""
    async with people(browser) as crowd:
        ann = await crowd.page("ann")
        port = crowd.server.port
        await crowd.server.stop()
        await expect(ann.locator("#conn")).to_have_text(re.compile(r"^Restarting: retrying in"))
        await expect(ann.locator("#conn")).to_have_attribute("title", re.compile("server"))
        await ann.wait_for_timeout(2500)  # tries at 0.5 s and 1 s found no server
        await expect(ann.locator("#conn")).to_have_text(re.compile(r"^Restarting: retrying in"))
        async with game_server(port=port):
            await expect(ann.locator("#conn")).to_have_text("Online", timeout=20_000)


async def test_a_reload_and_a_dropped_connection_resume_the_game(browser: Browser) -> None:
    """ann creates a private room and reloads the page before anyone comes: the room and
    its code are still there (a reload closed it at once), and hal joins it by its
    invite code, which her address does not hold (the tab's history kept it for the next
    person at a shared computer); the Invite field does. ann reloads the page mid-game:
    her name, her seat, the position and what hal said come back and she plays on. Then
    her connection drops and hal moves meanwhile: the page reconnects by itself, catches
    up the missed move, and she plays on."""
    async with people(browser) as crowd:
        ann = await crowd.page("ann")
        await ann.check("#create-form input[name=private]")
        await ann.select_option("#create-form select[name=seat]", "black")
        await ann.click("#create-button")
        code = await ann.locator("#invite-code").inner_text()
        assert re.search(r"#/room/r-[0-9a-f]+$", ann.url), ann.url
        assert code in await ann.locator("#share-link").input_value()
        await ann.reload()
        await expect(ann.locator("#status")).to_contain_text("Waiting for an opponent")
        await expect(ann.locator("#invite-code")).to_have_text(code)
        hal = await crowd.client("hal")
        await hal.send(m.Join(code=code))
        room = (await hal.expect(m.Snapshot)).room.id
        await expect(ann.locator("#status")).to_have_text("Your move: Black.")
        await point(ann, "h8").click()
        await hal.event(Moved, room)
        await hal.move(room, "a1")
        await hal.event(Moved, room)
        await moves_shown(ann, 2)
        await hal.send(m.Chat(room=room, text="a1, of course"))
        await expect(ann.locator("#chat-log")).to_contain_text("hal: a1, of course")

        await ann.reload()
        await expect(ann.locator("#conn")).to_have_attribute("data-state", "online")
        await expect(ann.locator("header #me")).to_have_text("ann")
        await moves_shown(ann, 2)
        await expect(ann.locator("#chat-log")).to_contain_text("hal: a1, of course")  # kept
        await expect(ann.locator("#chat-log")).to_contain_text(
            "The game is on: 2 moves played so far"
        )
        await expect(ann.locator("#name-black")).to_contain_text(re.compile(r"ann .*\(you\)"))
        await expect(ann.locator("#status")).to_have_text("Your move: Black.")
        await point(ann, "h9").click()
        assert (await hal.until_event(Moved)).point == "h9"  # after ann's presence events

        ann_conn = crowd.connection_of("ann")
        ann_conn.ws.transport.abort()  # the network drops
        await expect(ann.locator("#conn")).to_have_attribute("data-state", "offline")
        assert not (await hal.until_event(Presence)).online  # hal is told; he plays on
        await hal.move(room, "a2")  # within the page's first reconnect wait (0.5 s)
        assert (await hal.until_event(Moved)).point == "a2"
        await expect(ann.locator("#conn")).to_have_attribute("data-state", "online")
        await moves_shown(ann, 4)
        assert await ann.locator("#moves li").all_inner_texts() == ["h8", "a1", "h9", "a2"]
        await point(ann, "h10").click()
        assert (await hal.until_event(Moved)).point == "h10"


async def cy_watches_a_private_game(
    crowd: People,
) -> tuple[TestClient, TestClient, str, str, Page]:
    """Ann (Black) and Hal play a private game; cy's page watches it, opened by its code:
    (ann, hal, the room's id, its code, cy's page)."""
    ann = await crowd.client("ann")
    made = await ann.create(private=True, seat="black")
    code = made.room.code
    assert code is not None
    hal = await crowd.client("hal")
    await hal.send(m.Join(code=code))
    room = (await hal.expect(m.Snapshot)).room.id
    cy = await crowd.page("cy")
    await cy.goto(f"{crowd.url}#/room/{code}")
    await expect(cy.locator("#status")).to_contain_text("ann to move")
    return ann, hal, room, code, cy


async def test_back_after_play_as_a_new_player_opens_no_private_room_of_the_last_one(
    browser: Browser,
) -> None:
    """ann played a private game she entered by its invite link, then made the page a new
    player's: Back no longer brings the next person into that room and its chat (the
    code stayed in the tab's history, a spectator's pass to it)."""
    async with people(browser) as crowd:
        hal = await crowd.client("hal")
        made = await hal.create(private=True, seat="white")
        assert made.room.code is not None
        ann = await crowd.page("ann", hash=f"#/room/{made.room.code}")
        await expect(ann.locator("#name-black")).to_contain_text(re.compile(r"ann .*\(you\)"))
        assert ann.url.endswith(f"#/room/{made.room.id}")
        await hal.send(m.Chat(room=made.room.id, text="call me on 555-0199"))
        await expect(ann.locator("#chat-log")).to_contain_text("555-0199")
        await ann.click("#rename")
        await ann.fill("#name-input", "guest")
        await ann.click("#name-new")
        await expect(ann.locator("header #me")).to_have_text("guest")
        for _ in range(3):
            await ann.go_back()
            await ann.wait_for_timeout(300)
            assert made.room.code not in ann.url
            await expect(ann.get_by_text("555-0199")).not_to_be_visible()


async def test_a_spectator_of_a_private_game_watches_on_after_a_dropped_network(
    browser: Browser,
) -> None:
    """cy watches a private game she entered by its code; her network drops. She was
    told "That room is gone: back to the lobby" (her resume is refused: a spectator
    whose connection closed is no longer one) while the game went on: the page joins it
    again by its code, and the move made meanwhile shows."""
    async with people(browser) as crowd:
        ann, hal, room, code, cy = await cy_watches_a_private_game(crowd)
        cy_conn = crowd.connection_of("cy")
        cy_conn.ws.transport.abort()  # the network drops
        await expect(cy.locator("#conn")).to_have_attribute("data-state", "offline")
        await ann.move(room, "h8")
        await expect(cy.locator("#conn")).to_have_attribute("data-state", "online")
        await moves_shown(cy, 1)
        await expect(cy.locator("#status")).to_contain_text("hal to move")
        assert cy.url.endswith(f"#/room/{code}")
        await hal.move(room, "a1")
        await moves_shown(cy, 2)


async def test_a_spectator_of_a_private_game_is_not_offered_its_record(
    browser: Browser,
) -> None:
    """A private game's record is for its players: its spectator (a tournament director)
    was offered Review and Downloads that the server then refused; the page says whom
    to ask instead."""
    async with people(browser) as crowd:
        ann, _hal, room, _code, cy = await cy_watches_a_private_game(crowd)
        await ann.send(m.Resign(room=room))
        await expect(cy.locator("#no-record")).to_contain_text("for its players")
        assert await cy.locator("#download-json").count() == 0
        assert await cy.locator("#review").count() == 0


async def test_a_spectator_coming_in_sees_the_offer_waiting(browser: Browser) -> None:
    """An offer made before a spectator came in is said in the status line (the page said
    it only to the player who must answer it)."""
    async with people(browser) as crowd:
        ann = await crowd.client("ann")
        hal = await crowd.client("hal")
        room = (await ann.create(seat="black")).room.id
        await hal.join(room)
        await ann.move(room, "h8")
        await hal.send(m.Offer(room=room, kind="draw"))
        await ann.until_event(Offered)
        cy = await crowd.page("cy")
        await cy.goto(f"{crowd.url}#/watch/{room}")
        await expect(cy.locator("#status")).to_have_text("hal offers a draw. hal to move (White).")


async def test_one_who_opens_a_finished_game_after_its_rematch_may_watch_it(
    browser: Browser,
) -> None:
    """The rematch began before cy opened the finished game: the page offers to watch
    it, as it does to those who were watching (it showed the finished board only)."""
    async with people(browser) as crowd:
        ann = await crowd.client("ann")
        hal = await crowd.client("hal")
        room = (await ann.create(seat="black")).room.id
        await hal.join(room)
        await ann.send(m.Resign(room=room))
        await hal.until_event(GameOver)
        await ann.send(m.Offer(room=room, kind="rematch"))
        await hal.until_event(Offered)
        await hal.send(m.Answer(room=room, kind="rematch", accept=True))
        rematch = await hal.until_event(Rematch)
        cy = await crowd.page("cy")
        await cy.goto(f"{crowd.url}#/watch/{room}")
        await cy.click("text=Watch the rematch")
        await expect(cy.locator("#status")).to_contain_text("hal to move")
        assert cy.url.endswith(f"#/watch/{rematch.room}")


async def test_a_declined_rematch_is_not_offered_again(browser: Browser) -> None:
    """hal declines ann's rematch: her Rematch button gives way to "hal declined your
    rematch." (the server takes no other offer from her there; one a second pressing
    offered again was unthrottled), and hal's own offer still reaches her."""
    async with people(browser) as crowd:
        ann, hal, room = await crowd.ann_against_hal()
        await hal.send(m.Resign(room=room))
        await ann.click("#offer-rematch")
        await hal.until_event(Offered)
        await hal.send(m.Answer(room=room, kind="rematch", accept=False))
        await expect(ann.locator("#no-rematch")).to_have_text("hal declined your rematch.")
        await expect(ann.locator("#offer-rematch")).to_have_count(0)
        await hal.send(m.Offer(room=room, kind="rematch"))
        await expect(ann.locator("#chat-log li").last).to_have_text(
            "hal offers a rematch (colours swapped)"
        )


async def test_a_new_player_at_a_shared_computer_is_someone_new(browser: Browser) -> None:
    """On a shared computer the next person chooses "Play as a new player": the page
    becomes ben, a player of his own with no games, and ann (in a game with hal) is left
    as she was, gone from the room, not renamed ben (renaming handed ben her games). The
    screen is headed as a change of name, not the first visit's "Welcome"."""
    async with people(browser) as crowd:
        ann, hal, room = await crowd.ann_against_hal()
        await ann.click("#rename")
        await expect(ann.locator("#name-title")).to_have_text("Change your name")
        # Two buttons, each saying what it does (a pupil pressed the big "Play" and
        # became the last pupil's player).
        await expect(ann.locator("#name-ok")).to_have_text("Rename ann")
        await expect(ann.locator("#name-new")).to_have_text("Play as a new player")
        await ann.fill("#name-input", "ben")
        await ann.click("#name-new")
        await expect(ann.locator("#me")).to_have_text("ben")
        await expect(ann.locator("#conn")).to_have_attribute("data-state", "online")
        gone = await hal.until_event(Presence)
        assert not gone.online
        await expect(ann.locator("#lobby-view")).to_be_visible()
        await expect(ann.locator(".card.resume")).to_be_hidden()
        snap = await hal.join(room)
        assert snap.room.players.black is not None
        assert snap.room.players.black.name == "ann"


async def test_a_game_the_server_lost_is_said_until_read(browser: Browser) -> None:
    """A running game gone with the server (a restart without Redis): the page went to
    the lobby with a toast gone in 6 s, and a player who looked away found no trace of
    the game. The lobby says it until the player dismisses it."""
    async with people(browser) as crowd:
        hal = await crowd.client("hal")
        room = (await hal.create(seat="black")).room.id
        ann = await crowd.page("ann")
        await ann.goto(f"{crowd.url}#/room/{room}")
        await expect(ann.locator("#status")).to_contain_text("hal to move")
        await crowd.server.store.expire_room(room, 0)  # as a restart leaves it: gone
        ann_conn = crowd.connection_of("ann")
        ann_conn.ws.transport.abort()  # back on a new connection, she resumes the room
        notice = ann.locator("#lobby-notice")
        await expect(notice).to_contain_text("Your game with hal is gone")
        await expect(ann.locator("#lobby-view")).to_be_visible()
        await ann.wait_for_timeout(6500)  # a toast's time
        await expect(notice).to_be_visible()
        await notice.locator("button").click()
        await expect(notice).to_be_hidden()


async def test_a_finished_games_room_that_closes_is_said_until_read(browser: Browser) -> None:
    """The finished game on the page reaches the end of its room's time on the server:
    the page goes to the lobby and says why there until dismissed (the player may be
    looking elsewhere), and "Your games" no longer offers to return to it."""
    timers = Timers(tick_interval_s=0.02, purge_interval_s=0.05, finished_room_ttl_ms=3_000)
    async with people(browser, timers=timers) as crowd:
        ann, hal, room = await crowd.ann_against_hal()
        await hal.send(m.Resign(room=room))
        await expect(ann.locator("#status")).to_contain_text("wins by resignation")
        notice = ann.locator("#lobby-notice")
        await expect(notice).to_contain_text("That game's room has closed: a finished game's")
        await expect(ann.locator("#lobby-view")).to_be_visible()
        assert await ann.locator(f'.resume a[data-room="{room}"]').count() == 0
        await notice.locator("button").click()
        await expect(notice).to_be_hidden()


async def test_two_arenas_under_paths_of_one_origin_keep_their_own_players(
    browser: Browser,
) -> None:
    """Two arenas published under /a/ and /b/ of one site (one browser storage): the
    page kept one name and token for both, so /b/ was sent /a/'s, refused it, and wrote
    its own over it; back on /a/, ann was a new player. Each arena keeps its own now;
    the first visit of each after the upgrade takes the player kept before (ann, who
    is /a/'s: /b/ does not know her token and makes her anew, under its own keys)."""
    async with game_server() as a_server, game_server() as b_server:
        arenas = Arenas({"a": a_server.port, "b": b_server.port})
        context = await browser.new_context(viewport=DESKTOP)
        try:
            await context.route("http://arena.test/**", arenas.page_file)
            for name in ("a", "b"):
                await context.route_web_socket(f"ws://arena.test/{name}/", arenas.relay)
            async with ws_connect(f"ws://127.0.0.1:{a_server.port}/") as ws:
                before = await TestClient(ws).hello("ann")  # kept as before the upgrade
            page = await context.new_page()
            page.set_default_timeout(WAIT_MS)
            await page.goto("http://arena.test/a/")
            await page.evaluate(
                "([token]) => { localStorage.clear(); localStorage.setItem('gomoku.name', 'ann');"
                " localStorage.setItem('gomoku.token', token); }",
                [before.token],
            )
            await page.reload()
            await expect(page.locator("header #me")).to_have_text("ann")
            ann = {before.player}
            await eventually(lambda: players_on(a_server) == ann)  # taken, not made anew
            await page.goto("http://arena.test/b/")  # it takes the old keys too: B has no
            await eventually(lambda: players_on(b_server))  # such token, ann starts afresh
            assert players_on(b_server).isdisjoint(ann)
            await page.goto("http://arena.test/a/")
            await expect(page.locator("header #me")).to_have_text("ann")
            await eventually(lambda: players_on(a_server) == ann)  # the same player back
        finally:
            await context.close()
            await arenas.close()


def players_on(server: GomokuServer) -> set[str]:
    """The players of the server's open connections."""
    return {c.identity.player for c in server.connections if c.identity is not None}


class Arenas:
    """Arenas published under paths of one site, http://arena.test/NAME/: each path's
    pages and WebSocket are its server's (by port)."""

    def __init__(self, ports: dict[str, int]) -> None:
        self.ports = ports
        self.tasks: set[asyncio.Task[None]] = set()

    def _port(self, url: str) -> tuple[int, str]:
        """The port of the arena ``url`` is under, and the path within it."""
        rest = url.split("://arena.test/", 1)[1]
        arena, _, path = rest.partition("/")
        return self.ports[arena], path

    async def page_file(self, route: Route) -> None:
        port, path = self._port(route.request.url)
        answer = await route.fetch(url=f"http://127.0.0.1:{port}/{path}")
        await route.fulfill(response=answer)

    async def relay(self, page_side: WebSocketRoute) -> None:
        """The page's WebSocket, carried to and from its arena's server."""
        port, _ = self._port(page_side.url)
        server = await ws_connect(
            f"ws://127.0.0.1:{port}/", subprotocols=[Subprotocol("gomoku.json")]
        )

        def forward(data: str | bytes) -> None:
            self._run(server.send(data))

        page_side.on_message(forward)
        page_side.on_close(lambda *_: self._run(server.close()))

        async def back() -> None:
            async for data in server:
                page_side.send(data)

        self._run(back())

    def _run(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.ensure_future(work)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def close(self) -> None:
        for task in list(self.tasks):
            task.cancel()


async def test_a_spectator_gone_elsewhere_no_longer_watches(browser: Browser) -> None:
    """A page that watched a game, then went to another game's link or to the lobby,
    still counted as watching (and got every event) until its Leave button: the players
    saw spectators who were not there. Going elsewhere stops watching."""
    async with people(browser) as crowd:
        ann = await crowd.client("ann")
        hal = await crowd.client("hal")
        first = (await ann.create(seat="black")).room.id
        await hal.join(first)
        second = (await hal.create(seat="black")).room.id
        cy = await crowd.page("cy")
        await cy.goto(f"{crowd.url}#/watch/{first}")
        await expect(cy.locator("#status")).to_contain_text("ann to move")
        assert (await ann.until_event(SpectatorCount)).count == 1
        await cy.goto(f"{crowd.url}#/watch/{second}")
        await expect(cy.locator("#status")).to_contain_text("Waiting for players")
        assert (await ann.until_event(SpectatorCount)).count == 0
        await cy.click("header nav >> text=Lobby")
        await expect(cy.locator("#lobby-view")).to_be_visible()
        await hal.until(  # hal's waiting room: cy came (1), then went
            lambda message: (
                isinstance(message, m.Event)
                and message.room == second
                and message.event == SpectatorCount(count=0)
            )
        )


async def test_a_reload_on_the_lobby_keeps_the_player_present_in_her_game(
    browser: Browser,
) -> None:
    """ann, seated in a game, reloads the page while it shows the lobby: hal sees her
    come back at once without her opening the room again (no claim against a player who
    is there), and the lobby's "Your games" takes her back to play on."""
    async with people(browser) as crowd:
        ann, hal, room = await ann_plays_hal(crowd)
        # As a person would: a click before her page heard of the start played nothing.
        await expect(ann.locator("#status")).to_have_text("Your move: Black.")
        await point(ann, "h8").click()
        await hal.event(Moved, room)
        await hal.move(room, "a1")
        await moves_shown(ann, 2)

        await ann.evaluate("window.location.hash = '#/'")
        await expect(ann.locator("#lobby-view")).to_be_visible()
        await ann.reload()
        assert not (await hal.until_event(Presence)).online  # the old page's socket closed
        assert (await hal.until_event(Presence)).online  # the new page is back in the room
        game = ann.locator(f'.resume a[data-room="{room}"]')
        await expect(game).to_have_text("Your game with hal: your turn")
        await game.click()
        await expect(ann.locator("#status")).to_have_text("Your move: Black.")
        await point(ann, "h9").click()
        assert (await hal.until_event(Moved)).point == "h9"


async def test_a_code_for_a_full_rooms_game_says_it_is_watched(browser: Browser) -> None:
    """cy opens the invite link of a private game whose seats are both taken: the page
    shows the game to watch, and says why she has no seat (it said nothing)."""
    async with people(browser) as crowd:
        *_, cy = await cy_watches_a_private_game(crowd)
        await expect(cy.locator("#toast")).to_have_text("Both seats are taken: you are watching.")
        await expect(cy.locator("#toast")).not_to_have_class(re.compile(r"\brefusal\b"))  # news


async def test_six_in_a_row_in_standard_rules_says_why_the_game_goes_on(browser: Browser) -> None:
    """ann fills the gap of h8-i8-j8 _ l8-m8 in a standard game: six in a row wins
    nothing there, and her log says so, as the terminal's does (a player who made six
    read no word of why the game went on)."""
    async with people(browser) as crowd:
        ann, hal, room = await crowd.ann_against_hal(rule="standard")
        hers, his = ["h8", "i8", "j8", "l8", "m8", "k8"], ["a1", "a3", "a5", "a7", "a9"]
        await play_out(ann, hal, room, hers, his)
        await expect(ann.locator("#chat-log")).to_contain_text(
            "k8: six or more in a row do not win in standard rules, only exactly five."
        )
        await expect(ann.locator("#status")).not_to_contain_text("wins")


async def test_renju_shows_a_forbidden_point_and_refuses_a_click_on_it(browser: Browser) -> None:
    """In renju, Black's double-three point is marked on the board with its reason, and a
    click on it (or a first tap, on a phone) is refused on the page with a visible reason
    that gives way to "Your move" after a while; nothing reaches the game. ann joins
    hal's private room by typing its invite code in the lobby."""
    async with people(browser) as crowd:
        hal = await crowd.client("hal")
        snap = await hal.create(rule="renju", private=True, seat="white")
        room, code = snap.room.id, snap.room.code
        assert code is not None
        ann = await crowd.page("ann")
        await ann.clock.install()  # the refusal's few seconds pass at once below
        await ann.fill("#code-form input[name=code]", code.lower())
        await ann.press("#code-form input[name=code]", "Enter")
        await expect(ann.locator("#name-black")).to_contain_text(re.compile(r"ann .*\(you\)"))
        await hal.event(PlayerJoined, room)
        await hal.event(GameStarted, room)
        for mine, theirs in (("h8", "a1"), ("i8", "a3"), ("j9", "a5"), ("j10", "a7")):
            await expect(ann.locator("#status")).to_have_text("Your move: Black.")
            await point(ann, mine).click()
            await hal.event(Moved, room)
            await hal.move(room, theirs)
            await hal.event(Moved, room)
        await moves_shown(ann, 8)
        await expect(point(ann, "j8")).to_have_attribute(
            "aria-label", "j8, forbidden for Black (double-three)"
        )
        assert await ann.locator(".marks .forbidden").count() >= 1
        await point(ann, "j8").click()
        status = ann.locator("#status")
        await expect(status).to_have_text(
            "j8 is forbidden for Black in renju (double-three: two open threes at once)."
        )
        await expect(status).to_have_class(re.compile("refusal"))
        await hal.silent(0.3)
        await moves_shown(ann, 8)
        await ann.clock.fast_forward(7_000)  # the toast goes, and the refusal with it
        await expect(ann.locator("#toast")).to_be_hidden()
        await expect(status).to_have_text("Your move: Black.")
        await expect(status).not_to_have_class(re.compile("refusal"))

        # ann on her phone too: the first tap on j8 is refused as the click was, with no
        # stone previewed and no "Place at j8" to press.
        phone = await crowd.page("ann", phone=True, hash=f"#/room/{room}", same_as=ann)
        await expect(phone.locator("#status")).to_have_text("Your move: Black.")
        await point(phone, "j8").tap()
        await expect(phone.locator("#status")).to_have_text(
            "j8 is forbidden for Black in renju (double-three: two open threes at once)."
        )
        await expect(phone.locator("#confirm-move")).to_be_hidden()
        assert await phone.locator(".marks .preview").count() == 0
        await point(ann, "k7").click()
        assert (await hal.until_event(Moved)).point == "k7"

        # The finished game's review marks the point as the live board did (it marked none).
        await hal.send(m.Resign(room=room))
        await ann.click("#review")
        step = ann.locator("#review-step")
        await expect(step).to_have_text("Move 9 of 9: k7 (Black)")
        await ann.keyboard.press("ArrowLeft")
        await expect(step).to_have_text("Move 8 of 9: a7 (White)")
        await expect(point(ann, "j8")).to_have_attribute(
            "aria-label", "j8, forbidden for Black (double-three)"
        )


def _renju_positions(count: int, seed: int) -> list[dict[str, Any]]:
    """Renju positions with Black to move and many black stones near each other (where
    fouls live), with the engine's verdict for every empty point."""
    rng = random.Random(seed)
    positions: list[dict[str, Any]] = []
    while len(positions) < count:
        board = Board(15, Rule.RENJU)
        board.play(Point(7, 7))
        for _ in range(rng.randrange(6, 40)):
            if board.is_over():
                break
            mine = board.stones(board.turn) or board.stones(Color.BLACK)
            near = [
                Point(p.x + dx, p.y + dy)
                for p in mine
                for dx in (-2, -1, 0, 1, 2)
                for dy in (-2, -1, 0, 1, 2)
            ]
            legal = [p for p in near if 0 <= p.x < 15 and 0 <= p.y < 15 and board.is_legal(p)]
            if board.turn is Color.WHITE and rng.random() < 0.5:
                legal = board.legal_moves()
            if not legal:
                break
            board.play(rng.choice(legal))
        if board.is_over() or board.turn is not Color.BLACK:
            continue
        cells = [0] * 225
        for colour, value in ((Color.BLACK, 1), (Color.WHITE, 2)):
            for p in board.stones(colour):
                cells[p.y * 15 + p.x] = value
        fouls = sorted([p.x, p.y, str(board.foul(p))] for p in board.forbidden_points())
        positions.append({"cells": cells, "fouls": fouls})
    return positions


async def test_the_pages_renju_fouls_agree_with_the_engine(browser: Browser) -> None:
    """The page's foul check (web/static/js/renju.js) marks exactly the points the
    engine refuses, with the same reason, on random renju positions."""
    positions = _renju_positions(300, seed=17)
    assert sum(1 for p in positions if p["fouls"]) >= 30  # the sample has fouls to find
    async with people(browser) as crowd:
        page = await crowd.page("ann")
        found = await page.evaluate(
            """async (positions) => {
                const renju = await import("/js/renju.js");
                return positions.map((p) => renju.forbiddenPoints(p.cells.slice(), 15)
                    .map((f) => [f.x, f.y, f.foul]).sort());
            }""",
            positions,
        )
    for position, seen in zip(positions, found, strict=True):
        assert sorted(seen) == position["fouls"]


CLOCKS_TYPED = [
    *("5+3", " 0.5 ", "10", "none", "", "1+2", "5+", ".5+.5", "2.5+0.5"),
    *("1440", "1441", "0+3600", "0+3601", "0+3", "-1", "five", "inf", "nan", "5+inf"),
    *("5+3+1", "1,5", "0.01", "0.02", "30s", "1.5 s + 2", "5+3s", "s", "1e3", "1_0", "+5"),
    "\u0663",  # an Arabic-Indic digit: a digit to Python, not to the page
    *("0:30+0", "1:30+1", "0:30", "0:75", ":30", "1:5"),  # minutes:seconds, as a clock shows
    # a CJK keyboard's full-width digits; a decimal comma
    *("\uff15+\uff13", "\uff10:\uff13\uff10+\uff10", "0,5+2"),
]
CLOCKS_SHOWN = [(300_000, 3_000), (90_000, 0), (30_000, 0), (10_000, 0), (100_000, 2_000)]
CLOCKS_SHOWN += [(86_399_950, 333), (86_400_000, 3_600_000), (1_000, 0), (60_600, 0)]


async def test_any_clock_typed_makes_the_room_the_terminal_would(browser: Browser) -> None:
    """The New room form takes any clock typed as minutes + seconds (1+2 is in no list),
    read as the terminal client reads it; what it cannot read is said by the field, and
    no room is made."""
    wanted: list[list[int] | str | None] = []
    for text in CLOCKS_TYPED:
        try:
            clock = parse_time_control(text)
        except TimeControlError:
            wanted.append("refused")
        else:
            wanted.append(None if clock is None else [clock.base_ms, clock.inc_ms])
    async with people(browser) as crowd:
        ann = await crowd.page("ann")
        read = await ann.evaluate(
            """async (texts) => {
                const room = await import("/js/room.js");
                return texts.map((text) => {
                    try {
                        const clock = room.parseTimeControl(text);
                        return clock === null ? null : [clock.base_ms, clock.inc_ms];
                    } catch {
                        return "refused";
                    }
                });
            }""",
            CLOCKS_TYPED,
        )
        assert dict(zip(CLOCKS_TYPED, read, strict=True)) == dict(
            zip(CLOCKS_TYPED, wanted, strict=True)
        )
        shown = await ann.evaluate(
            """async (clocks) => {
                const room = await import("/js/room.js");
                return clocks.map(([base_ms, inc_ms]) => room.timeControlText({ base_ms, inc_ms }));
            }""",
            CLOCKS_SHOWN,
        )  # written as the terminal client writes them (30 s was 0.5+0)
        assert shown == [str(TimeControl(base_ms=b, inc_ms=i)) for b, i in CLOCKS_SHOWN]
        left = [0, 99, 950, 4_230, 9_999, 10_000, 59_001, 3_600_000]
        read_out = await ann.evaluate(
            """async (left) => {
                const room = await import("/js/room.js");
                return left.map(room.gameClockText);
            }""",
            left,
        )  # a game's clock, tenths in the last ten seconds, as the terminal shows it
        assert read_out == [format_clock(ms) for ms in left]

        field = ann.locator("#create-form input[name=time]")
        await field.fill("five")
        await ann.click("#create-button")
        message = await field.evaluate("(input) => input.validationMessage")
        assert message.startswith('"five" is not a clock like 5+3'), message
        assert await rooms_opened(crowd, ann) == []
        await field.fill("1+2")  # typing clears the complaint
        assert await field.evaluate("(input) => input.validationMessage") == ""
        await ann.click("#create-button")
        room = await room_of(ann)
        await expect(ann.locator(".room-title")).to_contain_text("1+2")
        bob = await crowd.page("bob")  # the server's own word for the room's clock
        await expect(bob.locator(f'tr[data-room="{room}"] td').nth(2)).to_have_text("1+2")


def _said(problem: str | None) -> str | None:
    """The page's words for a problem of protocol.text: a sentence."""
    return None if problem is None else problem[0].upper() + problem[1:] + "."


async def test_a_line_of_piled_accents_draws_over_no_other_chat_line(browser: Browser) -> None:
    """A chat line of one letter under 250 accents (the rules take it: strikethrough
    text piles marks too) stays in its own line of the log: the line above it looks
    the same before and after (the pile drew a bar through the lines around it)."""
    async with people(browser) as crowd:
        ann, hal, room = await crowd.ann_against_hal()
        for text in ("first line", "second line"):
            await hal.send(m.Chat(room=room, text=text))
        above = ann.locator("#chat-log li", has_text="second line")
        await expect(above).to_be_visible()
        before = await above.screenshot()
        await hal.send(m.Chat(room=room, text="e" + "\u0301" * 250))
        await expect(ann.locator("#chat-log li")).to_have_count(4)  # "The game has started"
        assert await above.screenshot() == before


async def test_a_crafted_room_link_costs_the_visitor_nothing(browser: Browser) -> None:
    """A link to a room "id" of 4,100 characters says there is no such room, and one to
    such a profile that it is too long, with the connection kept (the join was a frame
    too big for the server, which closed the connection for it); one with a broken
    %-escape is no page error."""
    async with people(browser) as crowd:
        ann = await crowd.page("ann")
        await ann.goto(f"{crowd.url}#/room/{'A' * 4100}")
        await expect(ann.locator("#status")).to_have_text(
            f"Could not enter {'A' * 40}…: That room does not exist (any more), or it is "
            "private: a private game opens with its invite link or code. Back to the lobby"
        )
        await ann.goto(f"{crowd.url}#/profile/{'A' * 4100}")
        await expect(ann.locator("#profile-view")).to_contain_text(
            "Not sent: too long for the server."
        )
        await ann.goto(f"{crowd.url}#/room/%E0%A4%A")
        await expect(ann.locator("#status")).to_contain_text("Could not enter %E0%A4%A")
        await expect(ann.locator("#conn")).to_have_attribute("data-state", "online")
        assert all(len(frame) < 300 for frame in WIRE[ann] if frame.startswith(">"))


async def test_a_spectator_tells_two_players_of_one_name_apart_by_colour(
    browser: Browser,
) -> None:
    """Two pupils both named kim play; a page watching them reads each one's chat lines
    with their colour ("kim (black): hi"), in the chat it was shown on arrival and in
    what comes later: it read two lines from "kim"."""
    async with people(browser) as crowd:
        one = await crowd.client("kim")
        two = await crowd.client("kim")
        room = (await one.create(seat="black")).room.id
        await two.join(room)
        await one.until_event(GameStarted)
        await one.send(m.Chat(room=room, text="hi"))
        await one.until_event(ChatPosted)
        cy = await crowd.page("cy", hash=f"#/room/{room}")
        lines = cy.locator("#chat-log li.chat")
        await expect(lines.last).to_have_text("kim (black): hi")
        await two.send(m.Chat(room=room, text="hello"))
        await expect(lines.last).to_have_text("kim (white): hello")


async def test_names_and_chat_are_judged_as_the_server_judges_them(browser: Browser) -> None:
    """The page's copy of the name and chat rules gives the server's verdict and reason
    on names and lines in many scripts; a line the server would refuse is said by the
    chat field and not sent; a spectator's chat line says "(watching)" and a
    right-to-left name stays before its rating in the lobby."""
    names = NAMES_ACCEPTED + NAMES_REFUSED
    lines = CHAT_ACCEPTED + CHAT_REFUSED
    async with people(browser) as crowd:
        hal = await crowd.client("hal")
        room = (await hal.create(seat="white")).room.id
        ann = await crowd.page("ann", hash=f"#/room/{room}")
        judged = await ann.evaluate(
            """async ([names, lines]) => {
                const text = await import("/js/text.js");
                return [names.map(text.nameProblem), lines.map(text.chatProblem)];
            }""",
            [names, lines],
        )
        assert judged[0] == [_said(name_problem(n)) for n in names]
        assert judged[1] == [_said(chat_problem(t)) for t in lines]

        await hal.until_event(GameStarted)
        chat = ann.locator("#chat-input")
        await chat.fill("gg\u202e")
        await chat.press("Enter")
        message = await chat.evaluate("(input) => input.validationMessage")
        assert message == "A chat line may not hold direction controls (U+202E)."
        await chat.fill("gl hf")  # typing clears the complaint; this line goes
        await chat.press("Enter")
        said = await hal.until_event(ChatPosted)
        assert said.text == "gl hf"  # the refused line never reached the room

        cy = await crowd.client("\u05d3\u05d5\u05d3")  # a Hebrew name, watching
        await cy.join(room, role="spectator")
        await cy.send(m.Chat(room=room, text="hi!"))
        await expect(ann.locator("#chat-log li.chat").last).to_have_text(
            "\u05d3\u05d5\u05d3 (watching): hi!"
        )
        await hal.send(m.Chat(room=room, text="thanks"))
        await expect(ann.locator("#chat-log li.chat").last).to_have_text("hal: thanks")

        dan = await crowd.client("\u05d3\u05df")
        other = (await dan.create(seat="black")).room.id
        cell = ann.locator(f'tr[data-room="{other}"] td').nth(3)
        await ann.click("header nav >> text=Lobby")
        await expect(cell).to_have_text("\u25cf \u05d3\u05df (1500?)")
        name_box, rating_box = await cell.evaluate(
            """(td) => {
                const name = td.querySelector("bdi").getBoundingClientRect();
                const range = document.createRange();
                range.setStart(td.lastChild, 1);
                range.setEnd(td.lastChild, td.lastChild.length);
                return [name.left, range.getBoundingClientRect().left];
            }"""
        )
        assert name_box < rating_box  # the rating after the name, as in every other row


async def test_a_move_sent_shows_until_answered_and_a_lost_network_is_seen_at_once(
    browser: Browser,
) -> None:
    """On a phone that loses its network, the stone placed stays on the board, marked
    as on its way, with "Sending h8…", also once the page knows it is offline (it
    vanished then); another tap says why it does nothing; the page says it is offline
    within seconds (it took 15), and once back the move is played once, for the
    position it was meant for."""
    async with people(browser) as crowd:
        ann, hal, room = await crowd.ann_against_hal(phone=True)
        await ann.context.set_offline(True)
        started = asyncio.get_running_loop().time()
        await tap_move(ann, "h8")
        await expect(ann.locator("svg.board circle.sending.black")).to_have_count(1)
        await expect(ann.locator("#status")).to_have_text("Sending h8…")
        await point(ann, "i9").tap()
        await expect(ann.locator("#status")).to_have_text("Your move is on its way.")
        await expect(ann.locator("#conn")).to_have_attribute("data-state", "offline")
        assert asyncio.get_running_loop().time() - started < 8
        # Still marked while offline: whether it got through is not known yet.
        await expect(ann.locator("svg.board circle.sending.black")).to_have_count(1)
        # What staying away costs (hal was told he may claim; she was told nothing).
        await expect(ann.locator("#status")).to_contain_text(
            re.compile(r"If you are away more than [\w ]+, hal may claim the win\.$")
        )
        await expect(ann.locator("#hint")).to_be_disabled()  # as the game's own buttons
        await ann.context.set_offline(False)
        await expect(ann.locator("#conn")).to_have_attribute("data-state", "online")
        await expect(ann.locator("#status")).not_to_have_text(re.compile("Not connected"))
        label = await point(ann, "h8").get_attribute("aria-label") or ""
        if "stone" not in label:  # not delivered before the connection was dropped
            await point(ann, "h8").tap()
            await ann.locator("#confirm-move").tap()
        moved = await hal.until_event(Moved)
        assert (moved.point, moved.move_no) == ("h8", 1)
        await moves_shown(ann, 1)
        await hal.move(room, "a1")
        await moves_shown(ann, 2)


async def test_a_phone_on_its_side_shows_the_board_place_and_status_at_once(
    browser: Browser,
) -> None:
    """A phone turned on its side (640x360 and 844x390): from the board's top to the
    status line under Place fits in the screen, and the board is no smaller than half
    the screen's height (it was 624 px high on the first, 246 px on the second)."""
    async with people(browser) as crowd:
        for width, height in ((640, 360), (844, 390)):
            hal = await crowd.client(f"hal{width}")
            room = (await hal.create(seat="white")).room.id
            size = ViewportSize(width=width, height=height)
            ann = await crowd.page(f"ann{width}", phone=True, viewport=size, hash=f"#/room/{room}")
            await hal.until_event(GameStarted)
            await point(ann, "h8").tap()
            await expect(ann.locator("#confirm-move")).to_be_visible()
            board = await box(ann.locator(".board-host"))
            status = await box(ann.locator("#status"))
            assert status["y"] + status["height"] - board["y"] <= height, (width, board, status)
            assert board["height"] >= height / 2, (width, board)


async def test_a_phone_held_upright_shows_the_opponents_clock_above_the_board(
    browser: Browser,
) -> None:
    """On a 360x640 phone, with Place showing, hal's clock is above the board, in view
    (it was under the board, pushed off the screen), and ann's own seat under it; a
    spectator's page keeps both seats together under the board."""
    async with people(browser) as crowd:
        hal = await crowd.client("hal")
        five = TimeControl(base_ms=300_000, inc_ms=0)
        room = (await hal.create(seat="black", time=five)).room.id
        size = ViewportSize(width=360, height=640)
        ann = await crowd.page("ann", phone=True, viewport=size, hash=f"#/room/{room}")
        await hal.until_event(GameStarted)
        await hal.move(room, "h8")
        await point(ann, "j6").tap()
        await expect(ann.locator("#confirm-move")).to_be_visible()
        board = await box(ann.locator(".board-host"))
        opponent = await box(ann.locator("#clock-black"))
        assert opponent["y"] >= 0, opponent
        assert opponent["y"] + opponent["height"] <= board["y"], (opponent, board)
        assert (await box(ann.locator("#clock-white")))["y"] > board["y"] + board["height"]
        cy = await crowd.page("cy", phone=True, viewport=size, hash=f"#/watch/{room}")
        await expect(cy.locator("#name-black")).to_contain_text("hal")
        board = await box(cy.locator(".board-host"))
        for colour in ("black", "white"):
            assert (await box(cy.locator(f"#clock-{colour}")))["y"] > board["y"]


async def test_a_tablet_held_upright_puts_the_board_across_its_width(browser: Browser) -> None:
    """On a 768x1024 tablet the board spans the screen, hal's clock above it and ann's
    own seat under it, as on a phone (the desktop's two columns gave a 406-pixel board
    over half an empty screen)."""
    async with people(browser) as crowd:
        hal = await crowd.client("hal")
        room = (await hal.create(seat="black")).room.id
        size = ViewportSize(width=768, height=1024)
        ann = await crowd.page("ann", phone=True, viewport=size, hash=f"#/room/{room}")
        await hal.until_event(GameStarted)
        board = await box(ann.locator(".board-host"))
        assert board["width"] >= 700, board
        assert (await box(ann.locator("#clock-black")))["y"] < board["y"]
        own = await box(ann.locator("#clock-white"))
        assert board["y"] + board["height"] < own["y"] < 1024 - own["height"], (board, own)


async def test_a_profile_lists_a_game_both_left_early_as_aborted_and_later_as_a_draw(
    browser: Browser,
) -> None:
    """ann and hal leave a rated game after three stones (aborted: it counted for
    nothing), then another after four (a draw, rated): ann's profile on the page says
    so, not "Draw" for both, that the first was rated but did not count, and what the
    second did to her rating."""
    async with people(browser, game=GameRules(grace_ms=300)) as crowd:
        cy = await crowd.client("cy")
        player = None
        for finished, stones in enumerate((3, 4), start=1):
            ann = await crowd.client("ann", crowd.clients[1].token if player else None)
            hal = await crowd.client("hal", crowd.clients[2].token if player else None)
            player = crowd.clients[1].player
            room = (await ann.create(seat="black", rated=True)).room.id
            await hal.join(room)
            for i, point_name in enumerate(["h8", "a1", "h9", "a2"][:stones]):
                await (ann if i % 2 == 0 else hal).move(room, point_name)
                await ann.until_event(Moved)
            await ann.ws.close()
            await hal.ws.close()
            for _ in range(50):  # over a grace period after both left: archived, in order
                await cy.send(m.ListGames(player=player))
                listed = (await cy.expect(m.Games)).items
                if len(listed) == finished:
                    break
                await asyncio.sleep(0.1)
        [change] = [c for c in listed[0].ratings or () if c.player == player]
        page = await crowd.page("cy", hash=f"#/profile/{player}")
        games = page.locator("#profile-view .games li")
        await expect(games).to_have_count(2)
        await expect(games.nth(0)).to_contain_text(
            f"Draw: both players left · 4 moves · rated {change.after - change.before:+d} · "
        )
        # Set up rated, it did not count: not shown as a casual game either.
        await expect(games.nth(1)).to_contain_text(
            "Aborted: both players left · 3 moves · rated, not counted"
        )


async def test_a_profile_whose_games_were_private_says_why_none_are_listed(
    browser: Browser,
) -> None:
    """ann won a rated game in a private room: her profile, seen by cy, counts it and
    lists no game, and says why (it said "No finished games yet")."""
    async with people(browser) as crowd:
        ann = await crowd.client("ann")
        hal = await crowd.client("hal")
        snap = await ann.create(seat="black", rated=True, private=True)
        assert snap.room.code is not None
        await hal.send(m.Join(code=snap.room.code))
        await hal.expect(m.Snapshot)
        room = snap.room.id
        for i, point_name in enumerate(["h8", "a1", "h9", "a2"]):
            await (ann if i % 2 == 0 else hal).move(room, point_name)
            await ann.until_event(Moved)
        await hal.send(m.Resign(room=room))
        await ann.until_event(GameOver)
        page = await crowd.page("cy", hash=f"#/profile/{ann.player}")
        await expect(page.locator("#profile-view")).to_contain_text(
            "No finished games to show: a private room's games are listed to its players only."
        )


async def test_after_the_game_a_name_leads_to_the_profile(browser: Browser) -> None:
    """Once the game is over, a player's name on the game page leads to their profile
    (with their games to review and download: a teacher found no way to a student's
    finished game); during it the name is no link, which a slip would follow off the
    board."""
    async with people(browser) as crowd:
        ann, hal, room = await crowd.ann_against_hal()
        await expect(ann.locator("#name-white a")).to_have_count(0)
        await hal.send(m.Resign(room=room))
        await expect(ann.locator("#result")).to_contain_text("Black wins")
        await ann.click("#name-white a")
        await expect(ann.locator("#profile-view h1")).to_have_text("hal")


async def test_a_profile_lists_older_games_on_asking(browser: Browser) -> None:
    """After 22 games a profile lists the newest 20 and "Older games" brings the other
    two, oldest last (the page listed 20 with no word of the rest)."""
    async with people(browser) as crowd:
        ann, hal = await crowd.client("ann"), await crowd.client("hal")
        for _ in range(22):
            room = (await ann.create(seat="black")).room.id
            await hal.join(room)
            await ann.until_event(GameStarted)
            await hal.send(m.Resign(room=room))
            await ann.until_event(GameOver)
            for player in (ann, hal):
                await player.send(m.Leave(room=room))
                await player.until(lambda x: isinstance(x, m.Left))
            await asyncio.sleep(0.2)  # within the rate limit: 20 messages a second
        page = await crowd.page("cy", hash=f"#/profile/{ann.player}")
        games = page.locator("#profile-view .games li")
        await expect(games).to_have_count(20)
        await page.click("#older-games")
        await expect(games).to_have_count(22)
        await expect(page.locator("#older-games")).to_be_hidden()


async def test_a_timed_game_nobody_begins_is_aborted_on_the_page(browser: Browser) -> None:
    """Ann, Black in a timed game, never plays: at the end of the first stone's time the
    page says the game was aborted (not "Draw (abandonment)") and nothing is rated; a
    game with no stone offers no review and no record to download."""
    rules = GameRules(grace_ms=60_000, first_stone_ms=1_000)
    async with people(browser, game=rules) as crowd:
        hal = await crowd.client("hal")
        five = TimeControl(base_ms=300_000, inc_ms=0)
        room = (await hal.create(seat="white", rated=True, time=five)).room.id
        ann = await crowd.page("ann", hash=f"#/room/{room}")
        await hal.until_event(GameOver)
        await expect(ann.locator("#result strong")).to_have_text("Aborted before its first stone")
        await expect(ann.locator("#result .rating-change")).to_have_text(
            re.compile("^Not rated: the game ended before its second stone")
        )
        for offered in ("#review", "#download-json", "#download-psq"):
            await expect(ann.locator(offered)).to_have_count(0)


async def test_an_opponent_who_does_not_move_may_be_claimed_against(browser: Browser) -> None:
    """In a game without a clock, on a server with a 3 s move limit: on her move ann is
    told how long she has before hal may claim the win; then hal, connected, does not
    answer her stone: past the limit a Claim button shows, and it wins her the game on
    time."""
    rules = GameRules(grace_ms=60_000, untimed_move_ms=3_000)
    async with people(browser, game=rules) as crowd:
        ann, hal, _ = await crowd.ann_against_hal()
        warning = ann.locator("#move-limit")
        await expect(warning).to_have_text(
            re.compile(r"^Move within 0:0[1-3], or hal may claim the win\.$")
        )
        await expect(ann.locator("#claim")).to_have_count(0)
        await point(ann, "h8").click()
        await hal.until_event(Moved)
        await expect(warning).to_be_hidden()
        await expect(ann.locator("#claim")).to_have_text("Claim the win")
        title = ann.locator("#room-view .room-title")
        await expect(title).to_contain_text("no clock (0:03 a move)")  # said from the start
        said = "You may claim the win: hal has not moved for 0:03, the move limit."
        await expect(ann.locator("#announce")).to_have_text(said)  # (it came silently)
        await expect(ann.locator("#claim-why")).to_have_text(said)  # (a bare button, before)
        await ann.click("#claim")
        over = await hal.until_event(GameOver)
        assert (over.winner, over.reason) == ("black", "timeout")
        # (It said "Black wins on time" and "hal ran out of time", in a game with no clock.)
        await expect(ann.locator("#result strong")).to_have_text(
            "Black wins: White did not move in time"
        )
        await expect(ann.locator("#result .winner")).to_have_text(
            "You win: hal did not move in time."
        )
        await expect(ann.locator("#claim")).to_have_count(0)


async def test_the_first_stones_time_is_shown_to_both_players_and_a_spectator(
    browser: Browser,
) -> None:
    """In a game with a clock, on a server giving the first stone 8 s: ann, Black, is
    told how long she has to place it before the game is aborted, counted down, and hal
    and cy (come in to watch after the start) how long she has; her stone takes the
    line away on every page."""
    rules = GameRules(grace_ms=60_000, first_stone_ms=8_000)
    async with people(browser, game=rules) as crowd:
        hal = await crowd.page("hal")
        await hal.fill("#create-form input[name=time]", "1+0")
        await hal.select_option("#create-form select[name=seat]", "white")
        await hal.click("#create-button")
        room = await room_of(hal)
        await expect(hal.locator("#status")).to_contain_text("Waiting for an opponent")
        await expect(hal.locator("#first-stone")).to_be_hidden()  # nothing before the start
        ann = await crowd.page("ann", hash=f"#/room/{room}")
        line = ann.locator("#first-stone")
        await expect(line).to_have_text(
            re.compile(r"^Place the first stone within 0:0[1-8], or the game is aborted\.$")
        )
        await expect(line).not_to_have_text(await line.inner_text())  # a second later
        cy = await crowd.page("cy", hash=f"#/watch/{room}")
        theirs = re.compile(
            r"^ann has 0:0[1-8] to place the first stone, or the game is aborted\.$"
        )
        for page in (hal, cy):
            await expect(page.locator("#first-stone")).to_have_text(theirs)
        await point(ann, "h8").click()
        for page in (ann, hal, cy):
            await moves_shown(page, 1)
            await expect(page.locator("#first-stone")).to_be_hidden()
        await expect(ann.locator("#result")).to_be_hidden()  # not aborted: the game goes on


async def test_an_offer_arriving_leaves_the_game_buttons_where_they_were(
    browser: Browser,
) -> None:
    """hal offers a draw as ann reaches for Take back: the offer comes under the game's
    buttons, which stay where they were (above them it pushed them down, and Accept took
    Take back's place)."""
    async with people(browser) as crowd:
        ann, hal, room = await two_stones_down(crowd)
        before = await box(ann.locator("#offer-takeback"))
        await hal.send(m.Offer(room=room, kind="draw"))
        await expect(ann.locator(".offer")).to_contain_text("hal offers a draw.")
        assert await box(ann.locator("#offer-takeback")) == before
        accept = await box(ann.locator("#accept"))
        assert accept["y"] >= before["y"] + before["height"]


async def test_a_running_game_left_for_the_lobby_shows_its_clock_and_the_way_back(
    browser: Browser,
) -> None:
    """ann goes to the lobby by the header's link in a one-minute game: under the header
    she reads whose turn it is and her clock, on every page, and it takes her back (a
    bullet player lost on time in the lobby, told nothing)."""
    async with people(browser) as crowd:
        ann, hal, room = await crowd.ann_against_hal(time=TimeControl(base_ms=60_000, inc_ms=0))
        strip = ann.locator("#playing")
        await expect(strip).to_be_hidden()  # not while the game is in view
        await point(ann, "h8").click()
        await hal_sees(hal, "h8")
        await ann.locator("header nav a", has_text="Lobby").click()
        await expect(ann.locator("#lobby-view")).to_be_visible()
        await expect(strip).to_have_text(
            re.compile(r"^Your game with hal: hal's turn, 1:00 on your clock\. Back to it$")
        )
        await hal.move(room, "a1")
        await ann.locator("header nav a", has_text="Leaderboard").click()
        await expect(strip).to_have_text(
            re.compile(r"^Your game with hal: your turn, 0:[0-5]\d on your clock\. Back to it$")
        )
        await strip.click()
        await expect(ann.locator("#room-view")).to_be_visible()
        await expect(strip).to_be_hidden()
        assert await ann.evaluate(FOCUSED_POINT) is not None  # the keys on the board again
        await point(ann, "h9").click()
        await hal_sees(hal, "h9")


async def test_an_offer_is_said_in_the_status_line(browser: Browser) -> None:
    """On a small phone the offer's box is below the board: the status line, which is
    in view, says that hal offers a draw."""
    async with people(browser) as crowd:
        ann, hal, room = await crowd.ann_against_hal(phone=True)
        await hal.send(m.Offer(room=room, kind="draw"))
        await expect(ann.locator("#status")).to_have_text("hal offers a draw. Your move: Black.")
        await tap_move(ann, "h8")  # playing on declines it
        await expect(ann.locator("#status")).to_have_text("hal to move (White).")


async def test_a_swap2_seat_is_said_as_a_role_until_the_colours_are_chosen(
    browser: Browser,
) -> None:
    """A spectator of a swap2 room reads who sat down as the opener and as the second
    player: "bob sat down as white" read as his colour, which the opening's choice had
    still to settle."""
    async with people(browser) as crowd:
        hal = await crowd.client("hal")
        room = (await hal.create(opening="swap2", seat="black")).room.id
        cy = await crowd.page("cy", hash=f"#/watch/{room}")
        await expect(cy.locator("#name-black")).to_contain_text("hal")
        bob = await crowd.client("bob")
        await bob.join(room)
        log = cy.locator("#chat-log")
        await expect(log).to_contain_text("bob sat down as the second player")
        await expect(log).not_to_contain_text("as white")


async def test_a_player_leaving_a_waiting_room_is_named(browser: Browser) -> None:
    """A spectator of a waiting room reads who left it: "a spectator left the black
    seat" named nobody (the seat was emptied before its player's name was read)."""
    async with people(browser) as crowd:
        hal = await crowd.client("hal")
        room = (await hal.create(seat="black")).room.id
        cy = await crowd.page("cy", hash=f"#/watch/{room}")
        await expect(cy.locator("#name-black")).to_contain_text("hal")
        await hal.send(m.Leave(room=room))
        await expect(cy.locator("#chat-log")).to_contain_text("hal left the black seat")


async def test_swap2_choices_offers_chat_takeback_and_resign(browser: Browser) -> None:
    """hal opens a swap2 game; ann chooses her colour with the page's buttons, declines
    hal's draw offer, chats with him, has a move taken back with his consent, and
    resigns (confirming the question)."""
    async with people(browser) as crowd:
        hal = await crowd.client("hal")
        room = (await hal.create(opening="swap2", seat="black")).room.id
        ann = await crowd.page("ann", hash=f"#/room/{room}")
        await hal.until_event(GameStarted)
        status = ann.locator("#status")
        await expect(status).to_have_text("Swap2: hal places stone 1 of 3, then you choose.")
        for stone, colour in (("h8", "black"), ("h9", "white"), ("i8", "black")):
            await hal.move(room, stone)  # the opener's three stones, White's one too:
            await hal.until_event(Moved)  # said as placed by hal, who holds no colour yet
            await expect(ann.locator("#announce")).to_have_text(
                f"hal placed {stone}, a {colour} stone."
            )
        await expect(status).to_have_text("Swap2: your choice: Black, White or two more stones.")
        await expect(ann.locator("[data-choice]")).to_have_count(3)
        await expect(ann.locator("#offer-draw")).to_be_disabled()  # none before the colours
        await ann.click('[data-choice="white"]')
        chose = await hal.until_event(Chose)
        assert chose.choice == "white"
        assert (chose.black, chose.white) == (hal.player, chose.white)
        assert chose.white != hal.player
        await expect(ann.locator("#name-white")).to_contain_text("(you)")
        await expect(ann.locator("#status")).to_have_text("Your move: White.")
        await expect(ann.locator("#offer-draw")).to_be_enabled()
        await point(ann, "j8").click()
        assert (await hal.until_event(Moved)).point == "j8"

        await hal.send(m.Offer(room=room, kind="draw"))
        await expect(ann.locator(".offer")).to_contain_text("hal offers a draw.")
        await ann.click("#decline")
        answered = await hal.until_event(Answered)
        assert (answered.kind, answered.accept) == ("draw", False)
        await expect(ann.locator(".offer")).to_be_hidden()

        await ann.fill("#chat-input", "nice opening")
        await ann.press("#chat-input", "Enter")
        assert (await hal.until_event(ChatPosted)).text == "nice opening"
        await hal.send(m.Chat(room=room, text="thanks!"))
        await expect(ann.locator("#chat-log")).to_contain_text("hal: thanks!")

        await hal.move(room, "a1")
        await hal.until_event(Moved)
        await moves_shown(ann, 5)
        await ann.click("#offer-takeback")
        assert (await hal.until_event(Offered)).kind == "takeback"
        await hal.send(m.Answer(room=room, kind="takeback", accept=True))
        assert (await hal.until_event(Undone)).points == ["a1", "j8"]
        await moves_shown(ann, 3)
        await expect(ann.locator("#status")).to_have_text("Your move: White.")

        ann.once("dialog", lambda dialog: dialog.accept())
        await ann.click("#resign")
        over = await hal.until_event(GameOver)
        assert (over.winner, over.reason) == ("black", "resign")
        await expect(ann.locator("#result")).to_contain_text("Black wins by resignation")


async def test_a_swap2_game_resigned_in_the_opening_names_players_not_colours(
    browser: Browser,
) -> None:
    """ann joins hal's swap2 room: her log says what the opening asks, no Hint is
    offered during it, and hal resigning before the choice reads as hal's resignation,
    not as "Black wins" (nobody had a colour); the record's review names who placed the
    opening's stones."""
    async with people(browser) as crowd:
        hal = await crowd.client("hal")
        room = (await hal.create(opening="swap2", seat="black")).room.id
        ann = await crowd.page("ann", hash=f"#/room/{room}")
        await hal.until_event(GameStarted)
        await expect(ann.locator("#chat-log")).to_contain_text("hal places three stones")
        for stone in ("h8", "h9", "i8"):
            await hal.move(room, stone)
            await hal.until_event(Moved)
        await expect(ann.locator("[data-choice]")).to_have_count(3)
        await expect(ann.locator("#hint")).to_have_count(0)
        await hal.send(m.Resign(room=room))
        over = await hal.until_event(GameOver)
        assert (over.winner, over.reason) == ("white", "resign")
        await expect(ann.locator("#result")).to_contain_text(
            "ann wins: hal resigned during the swap2 opening"
        )
        await ann.click("#review")
        await expect(ann.locator("#review-step")).to_have_text(
            "Move 3 of 3: i8 (Black), placed by hal in the opening"
        )
        await expect(ann.locator("main")).to_contain_text("swap2, hal opened")


async def test_after_a_reload_no_takeback_reaches_into_a_five_stone_opening(
    browser: Browser,
) -> None:
    """A swap2 opening of five stones, the last two ann's; she is Black and hal, White,
    answers. After a reload the page still knows all five are the opening's: her only
    stones are, so Take back is off (it took the snapshot for three and offered it)."""
    async with people(browser) as crowd:
        hal = await crowd.client("hal")
        room = (await hal.create(opening="swap2", seat="black")).room.id
        ann = await crowd.page("ann", hash=f"#/room/{room}")
        await hal.until_event(GameStarted)
        for stone in ("h8", "h9", "i8"):
            await hal.move(room, stone)
            await hal.until_event(Moved)
        await ann.click('[data-choice="place2"]')
        assert (await hal.until_event(Chose)).choice == "place2"
        for stone in ("j10", "g7"):
            await expect(point(ann, stone)).to_be_visible()
            await point(ann, stone).click()
            assert (await hal.until_event(Moved)).point == stone
        await hal.send(m.Choose(room=room, choice="white"))
        await hal.until_event(Chose)
        await hal.move(room, "a1")
        await hal.until_event(Moved)
        await moves_shown(ann, 6)
        takeback = ann.locator("#offer-takeback")
        await expect(takeback).to_be_disabled()
        await ann.reload()
        await expect(ann.locator("#conn")).to_have_attribute("data-state", "online")
        await moves_shown(ann, 6)
        await expect(ann.locator("#status")).to_have_text("Your move: Black.")
        await expect(takeback).to_be_disabled()


async def test_after_a_swap2_colour_choice_each_clock_keeps_its_players_time(
    browser: Browser,
) -> None:
    """ann thinks 3 s over the swap2 choice and takes Black: the Black clock now shows
    her time (under 0:59) and stands, while hal's, as White, runs from his."""
    async with people(browser) as crowd:
        hal = await crowd.client("hal")
        minute = TimeControl(base_ms=60_000, inc_ms=0)
        room = (await hal.create(opening="swap2", seat="black", time=minute)).room.id
        ann = await crowd.page("ann", hash=f"#/room/{room}")
        await hal.until_event(GameStarted)
        for stone in ("h8", "h9", "i8"):
            await hal.move(room, stone)
            await hal.until_event(Moved)
        await expect(ann.locator("[data-choice]")).to_have_count(3)
        await asyncio.sleep(3)
        await ann.click('[data-choice="black"]')
        assert (await hal.until_event(Chose)).black != hal.player
        await expect(ann.locator("#name-black")).to_contain_text("(you)")
        # Her 3 s, less what lag compensation gives back: up to its quota, 1.25 s in a
        # one-minute game, when a loaded machine measures her link slow (0:58 was read).
        await expect(ann.locator("#clock-black")).to_have_text(re.compile(r"^0:5[0-8]$"))
        await expect(ann.locator("#clock-black")).not_to_have_class(re.compile("running"))
        await expect(ann.locator("#clock-white")).to_have_class(re.compile("running"))


async def test_the_leaderboard_lists_players_not_settled_yet_apart(browser: Browser) -> None:
    """After a club's first rated game nobody is established: the leaderboard says so and
    lists both players apart, unranked, their ratings with a ? (it showed "Nobody yet.")."""
    async with people(browser) as crowd:
        hal = await crowd.client("hal")
        cy = await crowd.client("cy")
        room = (await hal.create(seat="black", rated=True)).room.id
        await cy.join(room)
        await hal.until_event(GameStarted)
        for mover, point in ((hal, "h8"), (cy, "a1"), (hal, "h9")):
            await mover.move(room, point)
            await hal.until_event(Moved)
        await cy.send(m.Resign(room=room))
        over = await hal.until_event(GameOver)
        assert over.ratings is not None
        after = {r.player: r.after for r in over.ratings}
        ann = await crowd.page("ann", hash="#/leaderboard/freestyle")
        view = ann.locator("#leaderboard-view")
        await expect(view.locator("tbody").first).to_have_text("Nobody established yet.")
        rows = view.locator("tbody.unsettled tr")
        await expect(rows).to_have_count(3)
        await expect(rows.nth(0)).to_have_text("Not settled yet")
        hal_row = [cell.strip() for cell in await rows.nth(1).locator("td").all_inner_texts()]
        assert hal_row[:3] == ["", "hal", f"{after[hal.player]}?"]
        await expect(rows.nth(2).locator("td").nth(1)).to_have_text("cy")


async def test_a_rated_game_that_did_not_count_says_so(browser: Browser) -> None:
    """hal resigns a rated game after one stone: no rating moved, and the result says
    why instead of leaving ann to look for a rating line."""
    async with people(browser) as crowd:
        hal = await crowd.client("hal")
        room = (await hal.create(seat="black", rated=True)).room.id
        ann = await crowd.page("ann", hash=f"#/room/{room}")
        await hal.until_event(GameStarted)
        await hal.move(room, "h8")
        await hal.until_event(Moved)
        await hal.send(m.Resign(room=room))
        assert (await hal.until_event(GameOver)).ratings is None
        await expect(ann.locator("#result")).to_contain_text("White wins by resignation")
        await expect(ann.locator("#result")).to_contain_text(
            "Not rated: the game ended before its second stone."
        )


async def test_playing_the_ai_with_none_free_closes_the_room_and_says_why(
    browser: Browser,
) -> None:
    """Play the AI with no AI worker: the page leaves the room it made (left waiting, it
    was a public room any stranger could join), is back in the lobby, and says why in
    the server's words."""
    async with people(browser) as crowd:
        ann = await crowd.page("ann")
        await ann.click("#play-ai-button")
        await expect(ann.locator("#toast")).to_have_text(
            "No AI available: no AI worker is connected to this server."
        )
        await expect(ann.locator("#lobby-view")).to_be_visible()
        assert await rooms_opened(crowd, ann) == []


async def test_a_level_of_a_workers_own_is_named_with_other_level(
    browser: Browser, thinker: Thinker
) -> None:
    """Every AI list ends with "Other level…", which asks for a name (a worker of someone
    else's offers its own, like brain:embryo) and keeps it in every list, also after a
    reload; Play the AI asks for it (here none plays it, and the server says which do)."""
    async with people_and_an_ai(browser, thinker) as crowd:
        ann = await crowd.page("ann")
        ann.once("dialog", lambda dialog: dialog.accept("Brain:Embryo"))
        await ann.select_option("#create-form select[name=level]", label="Other level…")
        await expect(ann.locator("#create-form select[name=level]")).to_have_value("brain:embryo")
        await expect(ann.locator("#aivai-form select[name=white] option")).to_contain_text(
            ["beginner (first games: misses threats)", "brain:embryo", "Other level…"]
        )
        await ann.click("#play-ai-button")
        await expect(ann.locator("#toast")).to_contain_text("no AI plays level 'brain:embryo'")
        await ann.reload()
        await expect(ann.locator("#quick-form select[name=ai_level] option")).to_contain_text(
            ["brain:embryo"]
        )
        ann.once("dialog", lambda dialog: dialog.dismiss())  # cancelled: the list keeps its level
        await ann.select_option("#aivai-form select[name=black]", label="Other level…")
        await expect(ann.locator("#aivai-form select[name=black]")).to_have_value("novice")
        # Arrowed over with the keys, "Other level…" asks nothing until Enter (passing
        # over it opened the question at once).
        asked: list[str] = []

        async def answer(dialog: Dialog) -> None:
            asked.append(dialog.message)
            await dialog.dismiss()

        ann.on("dialog", answer)
        white = ann.locator("#aivai-form select[name=white]")
        await white.focus()
        await ann.keyboard.press("End")
        await expect(white).to_have_value("")  # "Other level…", chosen
        await ann.keyboard.press("ArrowUp")
        await ann.keyboard.press("End")
        assert asked == []
        await ann.keyboard.press("Enter")
        await expect(white).to_have_value("brain:embryo")  # asked, cancelled: the one before
        assert len(asked) == 1


async def test_the_ai_from_the_page(browser: Browser, thinker: Thinker) -> None:
    """With an AI worker connected: ann plays the AI of a level she picks in the lobby,
    asks for a hint (marked on the board until a takeback), then starts an AI-vs-AI game
    and watches it.
    She double-clicks both buttons: one game each."""
    async with people_and_an_ai(browser, thinker) as crowd:
        ann = await crowd.page("ann")
        await ann.select_option("#create-form select[name=seat]", "black")
        await ann.select_option("#create-form select[name=level]", "beginner")
        await ann.dblclick("#play-ai-button")
        await expect(ann.locator("#name-white")).to_contain_text("AI beginner")
        first = await room_of(ann)
        assert await rooms_opened(crowd, ann) == [first]
        await expect(ann.locator("#status")).to_have_text("Your move: Black.")
        # The double click's second click, on the board that opened under the pointer,
        # is no move (it played one where the button had been: seen as g3 in CI).
        await point(ann, "g3").dispatch_event("click", {"detail": 2})
        await caught_up(ann)
        await expect(ann.locator("#moves li")).to_have_count(0)
        await point(ann, "h8").click()
        await moves_shown(ann, 2)  # the AI answered
        await expect(ann.locator("#status")).to_have_text("Your move: Black.")
        await ann.click("#hint")
        await expect(ann.locator("#status")).to_have_text(re.compile(r"^Hint: [a-o]\d+ \("))
        await expect(ann.locator(".marks .hint")).to_have_count(1)
        # Taken back, the position the hint was for is gone, and so is its mark.
        await ann.click("#offer-takeback")
        await moves_shown(ann, 0)
        await expect(ann.locator(".marks .hint")).to_have_count(0)

        # The game goes on: leave. The AI waits as long as a move may take, and the
        # question says so (it said 60 s, and the AI claimed then: a child lost a game
        # to a tablet locked for a minute).
        left: list[str] = []

        async def leave(dialog: Dialog) -> None:
            left.append(dialog.message)
            await dialog.accept()

        ann.once("dialog", leave)
        await ann.click("#leave")
        await expect(ann.locator("#lobby-view")).to_be_visible()
        assert left == [
            "The game goes on without you: after 10:00 away the AI claims the win. Leave anyway?"
        ]
        await ann.select_option("#aivai-form select[name=black]", "beginner")
        await ann.select_option("#aivai-form select[name=white]", "beginner")
        await ann.fill("#aivai-form input[name=size]", "19")  # (it had no board size)
        await ann.dblclick("#aivai-form button")
        await expect(ann).to_have_url(re.compile(r"#/watch/r-"))
        await caught_up(ann)  # each create_ai_game's reply is a snapshot on the page:
        assert await ann.evaluate("[...gomoku.rooms.keys()]") == [await room_of(ann)]
        assert await ann.evaluate("[...gomoku.rooms.values()][0].size") == 19
        await expect(ann.locator("#name-black")).to_contain_text("AI beginner")
        await expect(ann.locator("#moves li").nth(3)).to_be_visible()  # they play on


async def test_a_page_offline_against_the_ai_is_told_when_the_ai_claims(
    browser: Browser, thinker: Thinker
) -> None:
    """ann's page loses its network in a game against the AI: it says the AI claims the
    win after the move limit (10 minutes), as long as it waits, not the grace period's
    minute a person may claim after."""
    async with people_and_an_ai(browser, thinker) as crowd:
        ann = await crowd.page("ann")
        await play_the_ai_as_black(ann, "beginner")
        await point(ann, "h8").click()
        await moves_shown(ann, 2)
        await ann.context.set_offline(True)
        await expect(ann.locator("#conn")).to_have_attribute("data-state", "offline")
        await expect(ann.locator("#status")).to_contain_text(
            "If you are away more than 10 minutes, AI beginner claims the win."
        )
        await ann.context.set_offline(False)


async def test_the_lobby_marks_an_ai_seat_in_words(browser: Browser, thinker: Thinker) -> None:
    """The lobby's row of a game against the AI says "· AI" by that seat, as the game
    page does: no emoji, which a browser without an emoji font draws as an empty box."""
    async with people_and_an_ai(browser, thinker) as crowd:
        ann = await crowd.page("ann")
        await play_the_ai_as_black(ann, "beginner")
        room = await room_of(ann)
        bob = await crowd.page("bob")
        row = bob.locator(f'tr[data-room="{room}"]')
        await expect(row.locator("td").nth(3)).to_have_text("● ann (1500?)")
        await expect(row.locator("td").nth(4)).to_have_text("○ AI beginner · AI")


async def test_after_the_ai_has_left_the_same_game_again_is_one_click(
    browser: Browser, thinker: Thinker
) -> None:
    """A finished game against an AI that has left (no rematch to offer): "Play the AI
    again" opens a new room with the same settings, the colours swapped and an AI of the
    same level in the other seat; a double click makes one room."""
    async with people_and_an_ai(browser, thinker) as crowd:
        ann = await crowd.page("ann")
        await ann.fill("#create-form input[name=size]", "13")
        await play_the_ai_as_black(ann, "novice")
        first = await room_of(ann)
        ann.once("dialog", lambda dialog: dialog.accept())
        await ann.click("#resign")
        await expect(ann.locator("#result")).to_contain_text("White wins by resignation")
        again = ann.locator("#play-ai-again")
        await expect(again).to_be_visible()  # the AI left (it lingers 0.3 s here)
        await shot(ann, "ai-left-1280x800")
        await again.dblclick()
        await expect(ann.locator("#name-black")).to_contain_text("AI novice")
        await expect(ann.locator("#name-white")).to_contain_text("ann")
        second = await room_of(ann)
        assert second != first
        assert [r for r in await rooms_opened(crowd, ann) if r != first] == [second]
        await expect(ann.locator(".room-title")).to_contain_text("13\u00d713")
        await moves_shown(ann, 1)  # the AI, Black now, opens


async def test_a_new_room_after_a_bigger_board_starts_clean(browser: Browser) -> None:
    """A 9x9 room after a finished 15x15 game shows none of the old game and plays by keys."""
    async with people(browser) as crowd:
        hal = await crowd.client("hal")
        room = (await hal.create(seat="white")).room.id
        ann = await crowd.page("ann", hash=f"#/room/{room}")
        await expect(ann.locator("#status")).to_have_text("Your move: Black.")
        await ann.fill("#chat-input", "good luck")
        await ann.press("#chat-input", "Enter")
        await point(ann, "n2").click()  # the keyboard cursor is on n2 now
        await moves_shown(ann, 1)
        ann.once("dialog", lambda dialog: dialog.accept())
        await ann.click("#resign")
        await expect(ann.locator("#result")).to_contain_text("White wins by resignation")

        await ann.click("header nav >> text=Lobby")
        await ann.fill("#create-form input[name=size]", "9")
        await ann.click("#create-button")
        await expect(ann.locator(".room-title")).to_contain_text("9\u00d79")
        await expect(ann.locator("#status")).to_have_text(
            "Waiting for an opponent: share the link, or seat an AI."
        )
        await expect(ann.locator("#seat-ai")).to_be_visible()
        await expect(ann.locator("#result")).to_be_hidden()
        await expect(ann.locator("#offer-rematch")).to_have_count(0)
        await moves_shown(ann, 0)
        await expect(ann.locator("#chat-log")).not_to_contain_text("good luck")
        await expect(ann.locator("[data-point]")).to_have_count(81)
        await point(ann, "e5").focus()
        await ann.keyboard.press("ArrowDown")
        await expect(point(ann, "e4")).to_be_focused()


async def test_leaving_a_running_game_warns_and_your_games_leads_back(browser: Browser) -> None:
    """Take back waits for her stone; Leave mid-game asks first; "Your games" leads back,
    naming the opponent and whose turn it is."""
    async with people(browser) as crowd:
        hal = await crowd.client("hal")
        room = (await hal.create(seat="black")).room.id
        ann = await crowd.page("ann", hash=f"#/room/{room}")
        await hal.until_event(GameStarted)
        await hal.move(room, "h8")
        await expect(ann.locator("#status")).to_have_text("Your move: White.")
        await expect(ann.locator("#offer-takeback")).to_be_disabled()
        await point(ann, "h9").click()
        await expect(ann.locator("#status")).to_have_text("hal to move (Black).")
        await expect(ann.locator("#offer-takeback")).to_be_enabled()

        await ann.click("header nav >> text=Lobby")
        game = ann.locator(f'.resume a[data-room="{room}"]')
        await expect(game).to_have_text("Your game with hal: hal's turn")
        await hal.move(room, "h10")  # the lobby follows the game
        await expect(game).to_have_text("Your game with hal: your turn")
        await game.click()
        await expect(ann.locator("#status")).to_have_text("Your move: White.")
        await point(ann, "h11").click()
        await expect(ann.locator("#status")).to_have_text("hal to move (Black).")

        questions: list[str] = []

        async def answer(dialog: Any, accept: bool) -> None:
            questions.append(dialog.message)
            await (dialog.accept() if accept else dialog.dismiss())

        ann.once("dialog", lambda dialog: answer(dialog, False))
        await ann.click("#leave")
        await expect(ann.locator("#status")).to_have_text("hal to move (Black).")
        assert questions == [
            "The game goes on without you: after 60 s away your opponent may claim the win. "
            "Leave anyway?"
        ]
        ann.once("dialog", lambda dialog: answer(dialog, True))
        await ann.click("#leave")
        await expect(ann.locator("#lobby-view")).to_be_visible()
        assert not (await hal.until_event(Presence)).online
        await expect(game).to_have_text("Your game with hal")  # from the lobby's list
        await game.click()
        await expect(ann.locator("#status")).to_have_text("hal to move (Black).")
        assert (await hal.until_event(Presence)).online


async def test_a_private_game_left_is_named_by_its_opponent_in_your_games(
    browser: Browser,
) -> None:
    """A private room is in no lobby list: after Leave, "Your games" showed its raw id
    ("Return to game r-...") instead of who the game is with."""
    async with people(browser) as crowd:
        hal = await crowd.client("hal")
        snap = await hal.create(seat="black", private=True)
        ann = await crowd.page("ann", hash=f"#/room/{snap.room.code}")
        await hal.until_event(GameStarted)
        ann.once("dialog", lambda dialog: dialog.accept())
        await ann.click("#leave")
        await expect(ann.locator("#lobby-view")).to_be_visible()
        game = ann.locator(f'.resume a[data-room="{snap.room.id}"]')
        await expect(game).to_have_text("Your game with hal")
        await game.click()
        await expect(ann.locator("#status")).to_have_text("hal to move (Black).")


async def test_a_game_left_while_running_says_how_it_ended_once_it_has(
    browser: Browser,
) -> None:
    """ann leaves her game with hal mid-game; hal resigns: "Your games" says the game is
    over and how (it went on saying "Your game with hal", as if it still ran), and leads
    to the finished game."""
    async with people(browser) as crowd:
        ann, hal, room = await crowd.ann_against_hal()
        await point(ann, "h8").click()
        await hal.until_event(Moved)
        ann.once("dialog", lambda dialog: dialog.accept())
        await ann.click("#leave")
        await expect(ann.locator("#lobby-view")).to_be_visible()
        game = ann.locator(f'.resume a[data-room="{room}"]')
        await expect(game).to_have_text("Your game with hal")
        await hal.send(m.Resign(room=room))
        await expect(game).to_have_text("Your game with hal is over: Black wins by resignation")
        await game.click()
        await expect(ann.locator("#result")).to_contain_text("Black wins by resignation")


async def test_a_first_visit_a_bad_name_and_a_bad_link_say_what_is_wrong(
    browser: Browser,
) -> None:
    """Before a name is chosen nothing connects, and the badge says "Not connected" (it
    counted down a red "Offline: retrying" forever); a name of spaces is refused in words
    (it did nothing); a link to no room shows why and the way back, not an empty room."""
    async with people(browser) as crowd:
        context = await browser.new_context(viewport=DESKTOP)
        crowd.contexts.append(context)
        page = await context.new_page()
        page.set_default_timeout(WAIT_MS)
        page.on("pageerror", lambda error: crowd.errors.append(f"first: {error}"))
        await page.goto(crowd.url + "#/room/NOPE")
        await page.wait_for_timeout(1500)  # the badge's ticks (every 250 ms) have run
        await expect(page.locator("#conn")).to_have_text("Not connected")
        await expect(page.locator("#conn")).not_to_have_attribute("data-state", "offline")
        await page.fill("#name-input", "   ")
        await page.press("#name-input", "Enter")
        said = await page.eval_on_selector("#name-input", "e => e.validationMessage")
        assert said == "A name needs a character one can see."
        await page.fill("#name-input", "ann")
        await page.press("#name-input", "Enter")
        await expect(page.locator("#status")).to_have_text(
            "Could not enter NOPE: No room has that invite code: check it (a typo?), or the "
            "room has closed. Back to the lobby"
        )
        for panel in (".side", ".board-host", "#leave"):
            await expect(page.locator(f"#room-view {panel}")).to_be_hidden()
        await page.click("#status >> text=Back to the lobby")
        await expect(page.locator("#lobby-view")).to_be_visible()
        await page.goto(crowd.url + "#/room/")
        await expect(page.locator("#lobby-view")).to_be_visible()


async def test_a_page_left_for_another_site_lets_the_player_go(browser: Browser) -> None:
    """Going to another page shows her offline to hal; Back brings her game back to play."""
    async with people(browser) as crowd:
        ann, hal, room = await crowd.ann_against_hal()
        await point(ann, "h8").click()
        assert (await hal.until_event(Moved)).point == "h8"

        await ann.evaluate("window.kept = true")  # still there if the page was kept
        await ann.goto("about:blank")
        assert not (await hal.until_event(Presence)).online
        await hal.move(room, "a1")
        await ann.go_back(wait_until="commit")  # a page from the cache has no load event
        assert (await hal.until_event(Presence)).online
        assert await ann.evaluate("window.kept === true")  # the very page came back
        await moves_shown(ann, 2)
        await point(ann, "h9").click()
        assert (await hal.until_event(Moved)).point == "h9"


async def test_the_clocks_stop_where_the_game_ended(browser: Browser) -> None:
    """ann thinks 2.5 s on her clock, then resigns: her clock and the watcher's show the
    time she had left at the end (the game_over's clocks), stopped, not her turn's start."""
    async with people(browser) as crowd:
        hal = await crowd.client("hal")
        minute = TimeControl(base_ms=60_000, inc_ms=0)
        room = (await hal.create(seat="black", time=minute)).room.id
        ann = await crowd.page("ann", hash=f"#/room/{room}")
        cy = await crowd.page("cy", hash=f"#/watch/{room}")
        await hal.until_event(GameStarted)
        await hal.move(room, "h8")
        await hal.until_event(Moved)
        await expect(ann.locator("#clock-white")).to_have_class(re.compile("running"))
        await asyncio.sleep(2.5)
        ann.once("dialog", lambda dialog: dialog.accept())
        await ann.click("#resign")
        over = await hal.until_event(GameOver)
        assert over.clocks is not None
        assert over.clocks.white_ms < 58_000
        for page in (ann, cy):
            await expect(page.locator("#result")).to_contain_text("Black wins by resignation")
            clock = page.locator("#clock-white")
            await expect(clock).to_have_text(clock_text(over.clocks.white_ms))
            await expect(clock).not_to_have_class(re.compile("running"))
            await expect(page.locator("#clock-black")).to_have_text("1:00")
        await asyncio.sleep(1.2)  # stopped: a second later it still shows the end
        await expect(ann.locator("#clock-white")).to_have_text(clock_text(over.clocks.white_ms))


async def test_a_double_click_on_a_lobby_button_sends_one_request(browser: Browser) -> None:
    """A double click on Create room makes one room, and one on Find an opponent queues
    once, with no refusal shown: a request button waits for its answer."""
    async with people(browser) as crowd:
        ann = await crowd.page("ann")
        await ann.dblclick("#create-button")
        room = await room_of(ann)
        assert await rooms_opened(crowd, ann) == [room]
        await expect(ann.locator("#status")).to_contain_text("Waiting for an opponent")

        bob = await crowd.page("bob")
        await bob.dblclick("#quick-button")
        await expect(bob.locator(".queue-status")).to_contain_text("Waiting for an opponent")
        await caught_up(bob)
        await expect(bob.locator("#toast")).to_be_hidden()
        await expect(bob.locator("#quick-button")).to_be_disabled()


async def test_a_match_found_in_another_tab_leaves_a_game_on_its_move_alone(
    browser: Browser,
) -> None:
    """ann plays hal in one tab (her move) and finds a quick match in another: the new
    game opens in the tab that searched, and the first tab stays on her game (it was
    pulled into the new one, whose first stone then went unplaced)."""
    async with people(browser) as crowd:
        hal = await crowd.client("hal")
        room = (await hal.create(seat="white")).room.id
        ann = await crowd.page("ann", hash=f"#/room/{room}")
        await hal.until_event(GameStarted)
        await expect(ann.locator("#status")).to_have_text("Your move: Black.")
        other = await crowd.page("ann", same_as=ann)  # (it opens her game in progress)
        await other.evaluate("() => { location.hash = '#/'; }")  # the lobby, in this tab
        await other.select_option("#quick-form select[name=time]", "")  # no clock
        await other.click("#quick-button")
        await expect(other.locator(".queue-status")).to_contain_text("Waiting for an opponent")
        cy = await crowd.client("cy")
        await cy.send(m.Queue())
        matched = await cy.until(lambda x: isinstance(x, m.Snapshot))
        assert isinstance(matched, m.Snapshot)
        assert await room_of(other) == matched.room.id
        await asyncio.sleep(0.5)  # (the first tab has had the match's snapshot too)
        assert await room_of(ann) == room
        await expect(ann.locator("#status")).to_have_text("Your move: Black.")


async def test_a_quick_match_goes_on_after_the_connection_dropped(browser: Browser) -> None:
    """The server forgets a queue with its connection: back online, the page asks again
    and keeps counting, and a player who queues then is paired with it (it had stopped
    searching without a word)."""
    async with people(browser) as crowd:
        bob = await crowd.page("bob")
        await bob.select_option("#quick-form select[name=time]", "")  # no clock
        await bob.click("#quick-button")
        waiting = bob.locator(".queue-status")
        await expect(waiting).to_contain_text("Waiting for an opponent")
        bob_conn = crowd.connection_of("bob")
        bob_conn.ws.transport.abort()  # the network drops
        await expect(bob.locator("#conn")).to_have_attribute("data-state", "offline")
        await expect(bob.locator("#conn")).to_have_attribute("data-state", "online")
        await expect(waiting).to_contain_text("Waiting for an opponent")
        await caught_up(bob)
        cy = await crowd.client("cy")
        await cy.send(m.Queue())
        snapshot = await cy.until(lambda x: isinstance(x, m.Snapshot))  # queued, then paired
        assert isinstance(snapshot, m.Snapshot)
        assert snapshot.room.players.black is not None
        assert snapshot.room.players.white is not None
        assert {snapshot.room.players.black.name, snapshot.room.players.white.name} == {
            "bob",
            "cy",
        }
        assert await room_of(bob) == snapshot.room.id  # bob's page shows the game


async def test_double_clicks_in_a_game_act_once(browser: Browser) -> None:
    """A double click on the board plays one stone, on Accept accepts hal's draw once,
    and on Rematch proposes once: no refusal ("It is not your turn.", "The game is
    over.") shows where the game's state belongs. Refusals the page may get read in
    words, not as the server's raw text."""
    async with people(browser) as crowd:
        ann, hal, room = await crowd.ann_against_hal()
        await expect(ann.locator("#status")).to_have_text("Your move: Black.")
        await point(ann, "h8").dblclick()
        assert (await hal.until_event(Moved)).point == "h8"
        await caught_up(ann)
        await expect(ann.locator("#status")).to_have_text("hal to move (White).")
        await expect(ann.locator("#toast")).to_be_hidden()

        await hal.move(room, "a1")
        await hal.until_event(Moved)
        await hal.send(m.Offer(room=room, kind="draw"))
        await expect(ann.locator(".offer")).to_contain_text("hal offers a draw.")
        await ann.dblclick("#accept")
        over = await hal.until_event(GameOver)
        assert (over.winner, over.reason) == (None, "agreement")
        await caught_up(ann)
        await expect(ann.locator("#status")).to_have_text("Draw (agreement)")
        await expect(ann.locator("#toast")).to_be_hidden()

        await ann.dblclick("#offer-rematch")
        assert (await hal.until_event(Offered)).kind == "rematch"
        await caught_up(ann)
        await expect(ann.locator("#toast")).to_be_hidden()
        await expect(ann.locator(".controls")).to_contain_text(
            "Your rematch offer is waiting for an answer."
        )
        words = await ann.evaluate(
            """async () => {
                const { errorText } = await import("/js/ui.js");
                return [
                    errorText({code: "offer_pending", message: "a rematch offer is pending"}),
                    errorText({code: "wrong_phase", message: "hal has left the room"}),
                    errorText({code: "a_new_code", message: "something new"}),
                ];
            }"""
        )
        assert words == [
            "An offer is already waiting for an answer.",
            "Not now: hal has left the room.",
            "The server refused: something new.",
        ]


async def test_an_opponent_gone_after_the_game_has_left(browser: Browser) -> None:
    """hal's connection closes mid-game: ann sees the claim countdown; she resigns, and
    the countdown goes (nothing to claim after the game), and so does Rematch while he is
    away (the server would refuse it), and his seat says he left. He comes back: Rematch is
    back; he closes again: the log and his seat say "left", not that he lost the
    connection."""
    async with people(browser) as crowd:
        ann, hal, room = await crowd.ann_against_hal()
        await point(ann, "h8").click()
        await hal.until_event(Moved)
        await hal.ws.close()
        seat = ann.locator(".seat.white .presence")
        await expect(seat).to_have_text(re.compile(r"^ offline \(claimable in 0:[56]\d\)$"))
        await expect(ann.locator("#chat-log li").last).to_have_text("hal is offline")

        ann.once("dialog", lambda dialog: dialog.accept())
        await ann.click("#resign")
        await expect(ann.locator("#result")).to_contain_text("White wins by resignation")
        await expect(seat).to_have_text(" left")
        await expect(ann.locator("#offer-rematch")).to_have_count(0)
        await expect(ann.locator("#no-rematch")).to_have_text(
            "hal has left the room: no rematch for now."
        )
        await asyncio.sleep(1.2)  # a second later: still no countdown
        await expect(seat).to_have_text(" left")

        back = await crowd.client("hal", token=hal.token)
        await back.join(room)
        await expect(ann.locator("#chat-log li").last).to_have_text("hal is back")
        await expect(seat).to_be_empty()
        await expect(ann.locator("#offer-rematch")).to_be_visible()
        await back.ws.close()
        await expect(ann.locator("#chat-log li").last).to_have_text("hal left")
        await expect(ann.locator("#offer-rematch")).to_have_count(0)
        await expect(seat).to_have_text(" left")


async def test_a_tap_on_a_stone_offers_nothing_to_place(browser: Browser) -> None:
    """On a phone, a tap on a point with a stone (hers or hal's) brings up no "Place at"
    bar, and takes back a preview shown before; an empty point still previews."""
    async with people(browser) as crowd:
        ann, hal, room = await crowd.ann_against_hal(phone=True)
        await tap_move(ann, "h8")
        await hal.until_event(Moved)
        await hal.move(room, "a1")
        await expect(ann.locator("#status")).to_have_text("Your move: Black.")
        confirm = ann.locator("#confirm-move")
        for stone in ("h8", "a1"):
            await point(ann, stone).tap()
            await expect(confirm).to_be_hidden()
        await point(ann, "j9").tap()
        await expect(confirm).to_have_text("Place at j9")
        await point(ann, "h8").tap()
        await expect(confirm).to_be_hidden()
        assert await ann.locator(".marks .preview").count() == 0


async def test_the_boards_coordinates_are_readable_on_a_phone(browser: Browser) -> None:
    """On a 360-pixel phone the letters and numbers round the board are drawn at 10 px
    or more (they were 7-8 px), and those by a1 stand clear of the stone on it."""
    async with people(browser) as crowd:
        ann, hal, _room = await crowd.ann_against_hal(phone=True)
        await tap_move(ann, "a1")
        await hal.until_event(Moved)
        sizes = await ann.evaluate(
            "[...document.querySelectorAll('svg.board .coords text')]"
            ".filter((t) => t.getClientRects().length)"
            ".map((t) => parseFloat(getComputedStyle(t).fontSize)"
            " * t.ownerSVGElement.getScreenCTM().a)"
        )
        assert len(sizes) == 30, sizes
        assert min(sizes) >= 10, sizes
        # Glyphs take up about the middle half of their line's box, which is taller than
        # the margin: their centres stand a third of the font size off the stone's edge.
        stone = await box(ann.locator("svg.board .stone.black >> visible=true").first)
        letter = await box(ann.locator("svg.board .coords text >> text='a' >> visible=true"))
        number = await box(ann.locator("svg.board .coords text >> text='1' >> visible=true"))
        assert letter["y"] + letter["height"] / 2 - (stone["y"] + stone["height"]) > min(sizes) / 3
        assert stone["x"] - (number["x"] + number["width"] / 2) > min(sizes) / 3


async def test_chat_on_a_phone_wraps_and_keeps_a_refused_line(browser: Browser) -> None:
    """On a phone, a 300-character line with no space wraps inside the screen; the sixth
    line in a few seconds, refused for flooding, stays in the input to send again."""
    async with people(browser) as crowd:
        ann, _hal, _room = await crowd.ann_against_hal(phone=True)
        chat = ann.locator("#chat-input")
        await chat.fill("x" * 300)
        await chat.press("Enter")
        line = ann.locator("#chat-log li.chat")
        await expect(line).to_contain_text("x" * 300)
        wide = "(e) => [e.scrollWidth, e.clientWidth, document.documentElement.scrollWidth]"
        inner, outer, page_width = await ann.locator("#chat-log").evaluate(wide)
        assert inner <= outer  # wrapped: nothing sticks out of the log, nor of the page
        assert page_width <= PHONE["width"]

        for n in range(2, 6):
            await chat.fill(f"line {n}")
            await chat.press("Enter")
            await expect(line.last).to_have_text(f"ann (you): line {n}")  # her own
        await chat.fill("line 6")
        await chat.press("Enter")
        await expect(ann.locator("#toast")).to_have_text(CHAT_LIMIT_SAID)
        # A refusal, told by a sign as well as its words (it looked like any notice)...
        await expect(ann.locator("#toast")).to_have_class(re.compile(r"\brefusal\b"))
        await expect(chat).to_have_value("line 6")
        await expect(line).to_have_count(5)


async def test_a_game_that_ended_while_away_is_listed_until_seen(browser: Browser) -> None:
    """ann closes her page mid-game and hal resigns: when she opens the page again, "Your
    games" says the game with hal is over and how; once she has seen it, it is gone."""
    async with people(browser) as crowd:
        ann, hal, room = await crowd.ann_against_hal()
        await point(ann, "h8").click()
        await hal.until_event(Moved)
        await ann.goto("about:blank")
        assert not (await hal.until_event(Presence)).online
        await hal.send(m.Resign(room=room))
        await hal.until_event(GameOver)

        await ann.goto(crowd.url)
        game = ann.locator(f'.resume a[data-room="{room}"]')
        await expect(game).to_have_text("Your game with hal is over: Black wins by resignation")
        await game.click()
        await expect(ann.locator("#result")).to_contain_text("Black wins by resignation")
        await ann.click("header nav >> text=Lobby")
        await expect(ann.locator("#lobby-view")).to_be_visible()
        await expect(ann.locator(".resume")).to_be_hidden()
        await ann.reload()
        await expect(ann.locator("#conn")).to_have_attribute("data-state", "online")
        await caught_up(ann)
        await expect(ann.locator(".resume")).to_be_hidden()


async def test_a_game_that_ends_while_the_leaderboard_shows_is_listed_until_seen(
    browser: Browser,
) -> None:
    """ann looks at the leaderboard while her game runs and hal resigns: back on the
    lobby, "Your games" says the game is over and how (the hidden game page had taken
    the end as seen, and the game vanished from the lobby without a word)."""
    async with people(browser) as crowd:
        ann, hal, room = await crowd.ann_against_hal()
        await point(ann, "h8").click()
        await hal.until_event(Moved)
        await ann.click("header nav >> text=Leaderboard")
        await expect(ann.locator("#leaderboard-view")).to_be_visible()
        await hal.send(m.Resign(room=room))
        await hal.until_event(GameOver)
        await ann.wait_for_timeout(500)  # the page has heard of the end by now
        await ann.click("header nav >> text=Lobby")
        game = ann.locator(f'.resume a[data-room="{room}"]')
        await expect(game).to_have_text("Your game with hal is over: Black wins by resignation")


async def test_a_name_with_invisible_characters_is_refused_before_it_is_sent(
    browser: Browser,
) -> None:
    """A name with a zero-width joiner (a family emoji, say) is refused in the name form
    with the reason; one the page kept from before that the server refuses brings the
    name form back with the server's reason (the page showed the lobby with "Refused",
    and a reload did the same again)."""
    async with people(browser) as crowd:
        context = await browser.new_context(viewport=DESKTOP)
        crowd.contexts.append(context)
        page = await context.new_page()
        page.set_default_timeout(WAIT_MS)
        page.on("pageerror", lambda error: crowd.errors.append(f"first: {error}"))
        await page.goto(crowd.url)
        await page.fill("#name-input", "ann\u200bx")
        await page.press("#name-input", "Enter")
        said = await page.eval_on_selector("#name-input", "e => e.validationMessage")
        assert "invisible" in said
        await expect(page.locator("#name-view")).to_be_visible()

        await page.evaluate("localStorage.setItem('gomoku.name', 'ann\u200dx')")
        await page.reload()
        await expect(page.locator("#name-view")).to_be_visible()
        said = await page.eval_on_selector("#name-input", "e => e.validationMessage")
        assert said.startswith("The server refused this name: ")
        assert await page.evaluate("localStorage.getItem('gomoku.name')") is None
        await page.fill("#name-input", "ann")
        await page.press("#name-input", "Enter")
        await expect(page.locator("#conn")).to_have_attribute("data-state", "online")
        await expect(page.locator("#lobby-view")).to_be_visible()


async def test_a_connection_that_goes_silent_is_dropped_and_made_again(browser: Browser) -> None:
    """ann's connection stops carrying anything without closing (the server reads
    nothing more from it): the page's ping goes unanswered, it connects again by itself
    and she plays on (it showed "Online" for minutes while her clicks went nowhere)."""
    async with people(browser) as crowd:
        ann, hal, _ = await two_stones_down(crowd)
        await ann.evaluate("gomoku.conn.quietMs = 500; gomoku.conn.stallMs = 500")
        ann_conn = crowd.connection_of("ann")
        ann_conn.ws.transport.pause_reading()  # her pings, and all, reach nobody
        # Offline lasts as long as the first wait to reconnect (0.5 s): a look at the
        # badge may miss it on a loaded machine. The server sees her come back instead.
        await eventually(lambda: set(crowd.connections_of("ann")) - {ann_conn}, WAIT_MS / 1000)
        await expect(ann.locator("#conn")).to_have_attribute("data-state", "online")
        await expect(ann.locator("#status")).to_have_text("Your move: Black.")
        await point(ann, "h9").click()
        await hal_sees(hal, "h9")


async def test_a_clock_set_back_does_not_hide_a_silent_connection(browser: Browser) -> None:
    """The computer's clock goes back two hours (set by hand, or by a time sync) just
    before ann's connection goes silent: the page still pings and connects again (it
    kept saying "Online" for minutes, its waits measured by that clock)."""
    async with people(browser) as crowd:
        ann, hal, _ = await two_stones_down(crowd)
        await ann.evaluate(
            """() => {
                const real = Date.now.bind(Date);
                Date.now = () => real() - 2 * 3600 * 1000;
                gomoku.conn.quietMs = 500;
                gomoku.conn.stallMs = 500;
            }"""
        )
        ann_conn = crowd.connection_of("ann")
        ann_conn.ws.transport.pause_reading()
        await eventually(lambda: set(crowd.connections_of("ann")) - {ann_conn}, WAIT_MS / 1000)
        await expect(ann.locator("#conn")).to_have_attribute("data-state", "online")
        await point(ann, "h9").click()
        await hal_sees(hal, "h9")


async def test_a_frame_on_its_way_when_the_network_goes_does_not_hide_the_loss(
    browser: Browser,
) -> None:
    """The browser says it is offline and the page pings; a frame the server sent before
    (hal's chat line) arrives after that: only the ping's answer would show the link
    alive, and the page connects again within seconds (it took 15)."""
    async with people(browser) as crowd:
        ann, hal, room = await crowd.ann_against_hal()
        ann_conn = crowd.connection_of("ann")
        ann_conn.ws.transport.pause_reading()  # her ping reaches nobody
        await ann.evaluate("window.dispatchEvent(new Event('offline'))")
        await hal.send(m.Chat(room=room, text="still there?"))
        await expect(ann.locator("#chat-log")).to_contain_text("hal: still there?")
        # (Offline lasts as long as the first wait to reconnect: the server sees her
        # come back instead.)
        await eventually(lambda: set(crowd.connections_of("ann")) - {ann_conn}, 5)


async def hang_the_next_attempt(page: Page) -> list[WebSocketRoute]:
    """The page's next WebSocket is taken and never answered (a train's network); those
    after it go through to the server. Returns the attempts, as they come."""
    attempts: list[WebSocketRoute] = []

    def hang_the_first(ws: WebSocketRoute) -> None:
        attempts.append(ws)
        if len(attempts) > 1:
            ws.connect_to_server()  # the network is back: through to the server

    await page.route_web_socket(re.compile(".*"), hang_the_first)
    return attempts


async def test_an_attempt_to_connect_that_is_never_answered_is_made_again(
    browser: Browser,
) -> None:
    """ann's link drops, and her page's next attempt is taken and never answered (a
    train's network): within the page's wait for a hello's answer it gives the attempt
    up and makes another, which gets through, and she plays on (it sat at "Connecting…"
    for minutes while the game was lost)."""
    async with people(browser) as crowd:
        ann, hal, _ = await two_stones_down(crowd)
        await ann.evaluate("gomoku.conn.connectMs = 1500")
        attempts = await hang_the_next_attempt(ann)
        ann_conn = crowd.connection_of("ann")
        await ann_conn.ws.close(code=1011)  # her link goes
        await eventually(lambda: len(attempts) >= 2, WAIT_MS / 1000)
        await expect(ann.locator("#conn")).to_have_attribute("data-state", "online")
        await expect(ann.locator("#status")).to_have_text("Your move: Black.")
        await point(ann, "h9").click()
        await hal_sees(hal, "h9")


async def test_a_move_lost_with_the_link_stays_marked_until_back_and_is_then_said_lost(
    browser: Browser,
) -> None:
    """ann taps h9 as her link goes silent: while the page is reconnecting the stone
    stays on the board marked as sending (it vanished once the page called the link
    dead), and once back, h9 having never reached the server, the page says so (it only
    said "Your move" again); tapped again, h9 is played."""
    async with people(browser) as crowd:
        ann, hal, _ = await two_stones_down(crowd)
        await ann.evaluate("gomoku.conn.quietMs = 500; gomoku.conn.stallMs = 500")
        await ann.evaluate("gomoku.conn.connectMs = 2500")
        await hang_the_next_attempt(ann)
        ann_conn = crowd.connection_of("ann")
        ann_conn.ws.transport.pause_reading()  # h9 reaches nobody
        await point(ann, "h9").click()
        await expect(ann.locator("#conn")).not_to_have_attribute("data-state", "online")
        await expect(ann.locator("circle.sending")).to_have_count(1)
        await expect(ann.locator("#status")).to_have_text(
            "h9 did not reach the server: play it again.", timeout=WAIT_MS
        )
        await point(ann, "h9").click()
        await hal_sees(hal, "h9")


async def test_a_move_that_got_through_as_the_link_went_is_not_said_lost(
    browser: Browser,
) -> None:
    """ann's h9 reaches the server, and her link goes before its answer reaches her:
    once back, her page shows h9 played and never says it was lost (it judged as soon
    as it was online, before the room had caught up, and said a move that had counted
    "did not reach the server")."""
    async with people(browser) as crowd:
        ann, hal, _ = await two_stones_down(crowd)
        answering = {"on": True}
        routes: list[WebSocketRoute] = []

        def through(ws: WebSocketRoute) -> None:
            server = ws.connect_to_server()
            routes.append(ws)
            ws.on_message(server.send)
            server.on_message(lambda frame: ws.send(frame) if answering["on"] else None)

        await ann.route_web_socket(re.compile(".*"), through)
        await ann.reload()  # her connection now goes through the route
        await moves_shown(ann, 2)
        await ann.evaluate(
            """() => {
                window.said = [];
                const status = document.getElementById("status");
                new MutationObserver(() => window.said.push(status.textContent))
                    .observe(status, {childList: true, characterData: true, subtree: true});
            }"""
        )
        answering["on"] = False  # nothing more reaches her page
        await point(ann, "h9").click()
        await hal_sees(hal, "h9")
        answering["on"] = True
        await routes[-1].close(code=1006)  # her link goes
        await moves_shown(ann, 3)
        await expect(ann.locator("#conn")).to_have_attribute("data-state", "online")
        await ann.wait_for_timeout(500)
        said = await ann.evaluate("window.said")
        assert not any("did not reach the server" in text for text in said), said


async def test_a_move_clicked_while_the_opponent_thinks_is_played_on_ones_turn(
    browser: Browser,
) -> None:
    """In a game with a clock ann clicks j9 while hal is to move: it is kept, marked on
    the board, and played the moment his stone comes (a premove, as the terminal's; a
    bullet player's click did nothing)."""
    async with people(browser) as crowd:
        timed = TimeControl(base_ms=60_000, inc_ms=0)
        ann, hal, room = await crowd.ann_against_hal(time=timed)
        await point(ann, "h8").click()
        assert (await hal.until_event(Moved)).point == "h8"
        await moves_shown(ann, 1)
        await point(ann, "j9").click()
        await expect(ann.locator("svg.board circle.premove")).to_have_count(1)
        await expect(ann.locator("#toast")).to_have_text(
            "j9 is played as soon as hal has moved (another point replaces it)."
        )
        await hal.move(room, "a1")
        await hal_sees(hal, "j9")
        await moves_shown(ann, 3)
        await expect(ann.locator("svg.board circle.premove")).to_have_count(0)


async def test_the_first_stones_countdown_is_not_announced_once_the_stone_is_down(
    browser: Browser,
) -> None:
    """In a game with a clock, the screen reader is told once to place the first stone;
    once ann has placed it, that is no longer what it reads (it still said "Place the
    first stone within 0:30" after it)."""
    async with people(browser) as crowd:
        timed = TimeControl(base_ms=60_000, inc_ms=0)
        ann, hal, _ = await crowd.ann_against_hal(time=timed)
        await expect(ann.locator("#announce")).to_contain_text("Place the first stone within")
        await point(ann, "h8").click()
        assert (await hal.until_event(Moved)).point == "h8"
        await expect(ann.locator("#announce")).not_to_contain_text("Place the first stone")


async def test_a_chat_line_lost_with_the_link_comes_back_to_the_input(browser: Browser) -> None:
    """ann sends a chat line as her link goes silent: it never reaches the server, and
    once back the page puts it back in the input and says it was not sent (the input
    emptied and the line was lost unsaid)."""
    async with people(browser) as crowd:
        ann, _, _ = await two_stones_down(crowd)
        await ann.evaluate("gomoku.conn.quietMs = 500; gomoku.conn.stallMs = 500")
        ann_conn = crowd.connection_of("ann")
        ann_conn.ws.transport.pause_reading()  # the line reaches nobody
        await ann.fill("#chat-input", "into the tunnel")
        await ann.press("#chat-input", "Enter")
        await expect(ann.locator("#chat-input")).to_have_value("")
        await eventually(lambda: set(crowd.connections_of("ann")) - {ann_conn}, WAIT_MS / 1000)
        await expect(ann.locator("#chat-input")).to_have_value("into the tunnel")
        await expect(ann.locator("#toast")).to_have_text(
            "Your message was not sent: the connection dropped. Send it again."
        )
        await ann.press("#chat-input", "Enter")
        await expect(ann.locator("#chat-log")).to_contain_text("into the tunnel")


async def test_a_move_sent_as_the_link_went_is_not_said_to_be_ones_turn(
    browser: Browser,
) -> None:
    """ann clicks h9 as her link goes silent: while the page reconnects it says h9 was
    sent and counts if it got through (it said "Your move", though the move was on its
    way and was played when the link came back); once back, she is told h9 was lost,
    and h9 clicked again is played."""
    async with people(browser) as crowd:
        ann, hal, _ = await two_stones_down(crowd)
        await ann.evaluate(
            """() => {
                window.said = [];
                const status = document.getElementById("status");
                new MutationObserver(() => window.said.push(status.textContent))
                    .observe(status, {childList: true, characterData: true, subtree: true});
                gomoku.conn.quietMs = 500;
                gomoku.conn.stallMs = 500;
            }"""
        )
        ann_conn = crowd.connection_of("ann")
        ann_conn.ws.transport.pause_reading()  # h9 reaches nobody
        await point(ann, "h9").click()
        await eventually(lambda: set(crowd.connections_of("ann")) - {ann_conn}, WAIT_MS / 1000)
        await expect(ann.locator("#conn")).to_have_attribute("data-state", "online")
        await expect(ann.locator("#status")).to_have_text(
            "h9 did not reach the server: play it again."
        )
        said = await ann.evaluate("window.said")
        assert any("h9 was sent as the link went: it counts if it got through" in t for t in said)
        assert not any("reconnecting… (Your move" in t for t in said), said
        await point(ann, "h9").click()
        await hal_sees(hal, "h9")


async def test_ones_own_drop_replayed_is_said_as_ones_own(browser: Browser) -> None:
    """Back after a drop in a game without a clock, the page's log says "You were
    offline" and "You are back" for the events of her own drop it catches up on, not
    "ann is offline" as if of someone else."""
    async with people(browser) as crowd:
        ann, hal, _ = await crowd.ann_against_hal()
        await point(ann, "h8").click()
        await hal.until_event(Moved)
        ann_conn = crowd.connection_of("ann")
        await ann_conn.ws.close(code=1011)  # the server's end of her link goes
        gone = await hal.until_event(Presence)
        assert not gone.online
        await eventually(lambda: set(crowd.connections_of("ann")) - {ann_conn}, WAIT_MS / 1000)
        log = ann.locator("#chat-log li")
        await expect(log.filter(has_text="You were offline")).to_have_count(1)
        await expect(log.filter(has_text="You are back")).to_have_count(1)
        await expect(log.filter(has_text="ann is offline")).to_have_count(0)


# --- how the page reads and fits: long names, small screens, toasts ---------------------

LONG_NAMES = ("Alexandria Montgomery-Xy", "Hieronymus_Bartholomew_X")  # 24 characters: the most

# The innermost element of `root` that shows `text`, and whether all of that element shows.
SHOWN = """(root, text) => {
    let holder = root;
    for (;;) {
        const inner = [...holder.children].find((child) => child.textContent.includes(text));
        if (!inner) break;
        holder = inner;
    }
    const r = holder.getBoundingClientRect();
    return {cut: holder.scrollWidth > holder.clientWidth, left: r.left, right: r.right};
}"""


def rows_of(boxes: list[FloatRect]) -> int:
    """How many lines these boxes stand in (boxes side by side share a line)."""
    rows, bottom = 0, float("-inf")
    for b in sorted(boxes, key=lambda b: b["y"]):
        if b["y"] >= bottom - 1:  # below the line so far: a new line
            rows += 1
            bottom = b["y"] + b["height"]
        else:
            bottom = max(bottom, b["y"] + b["height"])
    return rows


async def test_the_swap2_opening_says_who_is_to_do_what(browser: Browser) -> None:
    """Through a swap2 opening the status line says who places which stone and who
    chooses next, to the opener (ann) and to a watcher (cy): ann places three stones,
    hal chooses to place two more, and ann chooses her colour. The room's log says
    what hal may choose."""
    async with people(browser) as crowd:
        ann = await crowd.page("ann")
        await ann.select_option("#create-form select[name=opening]", "swap2")
        await ann.select_option("#create-form select[name=seat]", "black")
        await ann.click("#create-button")
        room = await room_of(ann)
        hal = await crowd.client("hal")
        await hal.join(room)
        cy = await crowd.page("cy", hash=f"#/watch/{room}")
        mine, watched = ann.locator("#status"), cy.locator("#status")
        for n, (stone, colour) in enumerate((("h8", "Black"), ("h9", "White"), ("i8", "Black")), 1):
            await expect(mine).to_have_text(
                f"Swap2: place stone {n} of 3 ({colour}), then hal chooses."
            )
            await expect(watched).to_have_text(
                f"Swap2: ann places stone {n} of 3, then hal chooses."
            )
            await point(ann, stone).click()
        await expect(mine).to_have_text("Swap2: hal chooses: Black, White or two more stones.")
        await expect(watched).to_have_text("Swap2: hal chooses: Black, White or two more stones.")
        await expect(ann.locator("#chat-log")).to_contain_text(
            "hal is to choose: Black, White or two more stones"
        )
        await hal.send(m.Choose(room=room, choice="place2"))
        for n, stone in ((4, "j8"), (5, "g8")):
            await expect(mine).to_have_text(f"Swap2: hal places stone {n} of 5, then you choose.")
            await expect(watched).to_have_text(
                f"Swap2: hal places stone {n} of 5, then ann chooses."
            )
            await hal.move(room, stone)
        await expect(mine).to_have_text("Swap2: your choice: Black or White.")
        await expect(watched).to_have_text("Swap2: ann chooses: Black or White.")
        await expect(ann.locator("[data-choice]")).to_have_count(2)
        await ann.click('[data-choice="white"]')
        await expect(mine).to_have_text("Your move: White.")
        await expect(watched).to_have_text("ann to move (White).")


async def test_long_names_leave_the_rating_and_the_clock_in_view(browser: Browser) -> None:
    """Two 24-character names in a rated game with a clock, on a desktop and on a phone:
    a name gives way (whole in its title), while its rating, "(you)" and the clock show
    in full inside the seat, in that order."""
    ann_name, hal_name = LONG_NAMES
    async with people(browser) as crowd:
        hal = await crowd.client(hal_name)
        five = TimeControl(base_ms=300_000, inc_ms=0)
        room = (await hal.create(seat="white", rated=True, time=five)).room.id
        desktop = await crowd.page(ann_name, hash=f"#/room/{room}")
        phone = await crowd.page(
            ann_name, phone=True, viewport=BIG_PHONE, hash=f"#/room/{room}", same_as=desktop
        )
        for page in (desktop, phone):
            width = (page.viewport_size or DESKTOP)["width"]
            for colour, name, tags in (
                ("black", ann_name, "1500? (you)"),
                ("white", hal_name, "1500?"),
            ):
                seat = page.locator(f".seat.{colour}")
                await expect(seat).to_contain_text(f"{name} {tags}")
                shown = await seat.evaluate(SHOWN, tags)
                clock = await box(page.locator(f"#clock-{colour}"))
                around = await box(seat)
                assert not shown["cut"], (width, colour, shown)
                assert around["x"] <= shown["left"] < shown["right"] <= clock["x"], (width, colour)
                assert clock["x"] + clock["width"] <= around["x"] + around["width"] <= width
                await expect(page.locator(f"#name-{colour}")).to_have_attribute(
                    "title", f"{name} {tags}"
                )


MISSING_GLYPHS = """(characters) => {
  const canvas = document.createElement("canvas");
  canvas.width = canvas.height = 48;
  const pen = canvas.getContext("2d", { willReadFrequently: true });
  pen.font = "32px system-ui, sans-serif";  // the page's own font stack
  const drawn = (text) => {
    pen.clearRect(0, 0, 48, 48);
    pen.fillText(text, 4, 36);
    return pen.getImageData(0, 0, 48, 48).data.join(",");
  };
  const box = drawn("\\uE000");  // a private-use point: no font has it, so the empty box
  return characters.filter((c) => drawn(c) === box);
}"""


async def test_every_character_the_page_writes_has_a_font(browser: Browser) -> None:
    """Each character beyond ASCII in the page's files is drawn by a font Debian's
    Chromium has: none comes out as the empty box of a missing glyph (an emoji did)."""
    characters = sorted(
        {
            c
            for path in STATIC.rglob("*")
            if path.suffix in {".html", ".js", ".css"}
            for c in path.read_text(encoding="utf-8")
            if ord(c) > 127
        }
    )
    assert "\u25cf" in characters  # the stones of the lobby's seats: the scan reads the files
    page = await browser.new_page()
    try:
        # The comparison tells a missing glyph (another private-use point) from a drawn one.
        assert await page.evaluate(MISSING_GLYPHS, ["\ue001", "A"]) == ["\ue001"]
        assert await page.evaluate(MISSING_GLYPHS, characters) == []
    finally:
        await page.close()


async def test_an_empty_seat_says_so_and_nothing_more(browser: Browser) -> None:
    """While a room waits for its second player, the free seat reads "empty seat" and
    nothing after it, on a desktop and on a phone."""
    async with people(browser) as crowd:
        desktop = await crowd.page("ann")
        await desktop.select_option("#create-form select[name=seat]", "black")
        await desktop.click("#create-button")
        await expect(desktop.locator("#status")).to_contain_text("Waiting for an opponent")
        room = desktop.url.split("#/room/", 1)[1]
        phone = await crowd.page("ann", phone=True, hash=f"#/room/{room}", same_as=desktop)
        for page in (desktop, phone):
            await expect(page.locator("#name-black")).to_contain_text("ann")
            await expect(page.locator("#name-white")).to_have_text("empty seat")


async def test_the_profile_says_unrated_and_provisional_in_words(browser: Browser) -> None:
    """A newcomer's profile says "unrated" (why, in its title) where a rating would be,
    and a dash for its RD; after a rated game that rating shows, said to be provisional.
    No bare "?" anywhere."""
    async with people(browser) as crowd:
        hal = await crowd.client("hal")
        room = (await hal.create(seat="white", rated=True)).room.id
        ann = await crowd.page("ann")
        await ann.click("header nav >> text=Profile")
        rows = ann.locator("#profile-view .standings tbody tr")
        await expect(rows).to_have_count(3)
        for n, rule in enumerate(("freestyle", "standard", "renju")):
            cells = rows.nth(n).locator("td")
            await expect(cells.nth(1)).to_have_text("unrated")
            await expect(cells.nth(1)).to_have_attribute(
                "title", re.compile(f"^No rated {rule} game yet")
            )
            await expect(cells.nth(2)).to_have_text("\u2013")

        await ann.evaluate(f"window.location.hash = '#/room/{room}'")
        await hal.until_event(GameStarted)
        await point(ann, "h8").click()
        await hal.until_event(Moved)
        await hal.move(room, "a1")
        await moves_shown(ann, 2)
        await hal.send(m.Resign(room=room))
        await expect(ann.locator("#result .rating-change")).to_have_count(2)
        await ann.click("header nav >> text=Profile")
        freestyle = rows.nth(0).locator("td").nth(1)
        await expect(freestyle).to_have_text(re.compile(r"^1\d{3} provisional$"))
        await expect(freestyle).to_have_attribute(
            "title", re.compile(r"^Provisional: 1\d{3} after 1")
        )
        await expect(rows.nth(1).locator("td").nth(1)).to_have_text("unrated")
        await expect(ann.locator("#profile-view .standings")).not_to_contain_text("?")


async def test_an_offers_answers_stay_on_one_line_on_a_phone(browser: Browser) -> None:
    """On a 390-pixel phone hal asks to take back a move: Accept and Decline stand side
    by side inside the offer, each one line high."""
    async with people(browser) as crowd:
        hal = await crowd.client("hal")
        room = (await hal.create(seat="black")).room.id
        ann = await crowd.page("ann", phone=True, viewport=BIG_PHONE, hash=f"#/room/{room}")
        await hal.until_event(GameStarted)
        await hal.move(room, "h8")
        await moves_shown(ann, 1)
        await hal.send(m.Offer(room=room, kind="takeback"))
        offer = ann.locator(".offer")
        await expect(offer).to_contain_text("hal asks to take back a move.")
        accept, decline, around = [
            await box(ann.locator(s)) for s in ("#accept", "#decline", ".offer")
        ]
        line = await ann.locator("#decline").evaluate(
            "(e) => parseFloat(getComputedStyle(e).lineHeight)"
        )
        assert (decline["y"], decline["height"]) == (accept["y"], accept["height"])
        assert decline["height"] < 2 * line
        assert accept["x"] + accept["width"] <= decline["x"]
        assert decline["x"] + decline["width"] <= around["x"] + around["width"]


async def test_the_phone_header_takes_two_lines(browser: Browser) -> None:
    """On a phone (390 and 360 pixels wide), with a 24-character name, the header's
    brand, pages, name and connection take two lines, also while it says it is
    reconnecting, and nothing sticks out of the screen; the name is whole in its title."""
    name = LONG_NAMES[0]
    async with people(browser) as crowd:
        ann = await crowd.page(name, phone=True, viewport=BIG_PHONE)
        parts = ["header .brand", "header nav", "header .who", "#conn"]
        for size in (BIG_PHONE, PHONE):
            await ann.set_viewport_size(size)
            for state in ("online", "offline", "restarting"):
                if state != "online":  # the longest the connection's badge says
                    await ann.evaluate(
                        f"gomoku.conn.serverGone = {'true' if state == 'restarting' else 'false'};"
                        "gomoku.onState('offline', {retryAt: performance.now() + 10000})"
                    )
                    said = "Restarting" if state == "restarting" else "Offline"
                    await expect(ann.locator("#conn")).to_have_text(f"{said}: retrying in 10 s")
                boxes = [await box(ann.locator(part)) for part in parts]
                assert rows_of(boxes) == 2, (size, state, boxes)
                assert all(b["x"] + b["width"] <= size["width"] for b in boxes), (size, state)
            await ann.evaluate("gomoku.onState('online', {})")
        await expect(ann.locator("#me")).to_have_attribute("title", name)


async def test_a_toast_leaves_the_result_in_view(browser: Browser) -> None:
    """At the end of a game a toast (too many chat lines) hides neither the status line
    that says the result nor the result box: on a desktop, and on a phone scrolled, the
    toast up, to have the result at the foot of the screen."""
    async with people(browser) as crowd:
        hal = await crowd.client("hal")
        room = (await hal.create(seat="white")).room.id
        desktop = await crowd.page("ann", hash=f"#/room/{room}")
        phone = await crowd.page(
            "ann", phone=True, viewport=BIG_PHONE, hash=f"#/room/{room}", same_as=desktop
        )
        await hal.until_event(GameStarted)
        await point(desktop, "h8").click()
        await hal.until_event(Moved)
        await hal.send(m.Resign(room=room))
        for page in (desktop, phone):
            status = page.locator("#status")
            await expect(status).to_have_text("Black wins by resignation")
            toast = page.locator("#toast")
            for n in range(6):
                if await toast.is_visible():
                    break
                await page.fill("#chat-input", f"gg {n}")
                await page.press("#chat-input", "Enter")
            await expect(toast).to_have_text(CHAT_LIMIT_SAID)
            if page is phone:
                await page.evaluate(
                    """() => new Promise((done) => {
                        const r = document.getElementById("result").getBoundingClientRect();
                        window.scrollBy(0, r.bottom - window.innerHeight + 8);
                        requestAnimationFrame(() => requestAnimationFrame(done));
                    })"""
                )
            height = (page.viewport_size or DESKTOP)["height"]
            shown = await box(toast)
            assert shown["y"] >= 0
            assert shown["y"] + shown["height"] <= height
            for kept in ("#status", "#result"):
                assert not overlap(shown, await box(page.locator(kept))), kept


async def test_a_keyboard_player_hears_the_game_and_keeps_the_focus(browser: Browser) -> None:
    """With the keyboard only: a stone played with Enter; the opponent's move and the
    result are announced (the status line named only whose move it was); Enter where
    nothing can be played says why (it did nothing); the focus stays on the buttons
    pressed or goes to the board, never to the page's body; an offer's alert and the
    room log are not made again by a chat line (a screen reader read them out again)."""
    async with people(browser) as crowd:
        ann, hal, room = await ann_plays_hal(crowd)
        await expect(ann.locator("#status")).to_have_text("Your move: Black.")
        await point(ann, "h8").focus()
        await ann.keyboard.press("Enter")
        await hal.until_event(Moved)
        await expect(ann.locator("#status")).to_have_text("hal to move (White).")
        await ann.keyboard.press("ArrowRight")
        await ann.keyboard.press("Enter")  # not her move
        await expect(ann.locator("#status")).to_contain_text("It is not your move: hal plays.")
        await hal.move(room, "a1")
        await expect(ann.locator("#announce")).to_have_text("hal (White) played a1.")
        await ann.keyboard.press("ArrowLeft")
        await ann.keyboard.press("Enter")  # h8 again: taken
        await expect(ann.locator("#status")).to_have_text("h8 is already taken.")

        await ann.locator("#offer-draw").focus()
        await ann.keyboard.press("Enter")
        await hal.until_event(Offered)
        focused = "() => document.activeElement === document.body ? 'body' : 'elsewhere'"
        assert await ann.evaluate(focused) != "body"
        await hal.send(m.Answer(room=room, kind="draw", accept=False))
        await hal.until_event(Answered)
        assert await ann.evaluate(focused) != "body"

        await hal.send(m.Offer(room=room, kind="takeback"))
        accept = ann.locator("#accept")
        await expect(accept).to_be_visible()
        await ann.evaluate(
            "() => { document.querySelector('#accept').dataset.seen = 'yes'; "
            "document.querySelector('#chat-log li').dataset.seen = 'yes'; }"
        )
        await hal.send(m.Chat(room=room, text="take your time"))
        await expect(ann.locator("#chat-log")).to_contain_text("hal: take your time")
        assert await accept.get_attribute("data-seen") == "yes"  # the alert was not redone
        assert await ann.locator("#chat-log li").first.get_attribute("data-seen") == "yes"
        await ann.locator("#decline").focus()
        await ann.keyboard.press("Enter")
        await hal.until_event(Answered)
        assert await ann.evaluate(focused) != "body"

        await hal.send(m.Resign(room=room))
        await expect(ann.locator("#announce")).to_have_text("Black wins by resignation. You win.")


async def test_a_keyboard_player_starts_on_the_board_and_types_a_point_to_go_there(
    browser: Browser,
) -> None:
    """ann enters her game by a link: the keys are on the board (on the room's title,
    they were three Tabs away, Leave among them); j10 typed takes the cursor there, and
    Enter plays it (one arrow press a step, 28 from corner to corner); the board is one
    Tab stop, its cursor's point."""
    async with people(browser) as crowd:
        ann, hal, _ = await crowd.ann_against_hal()
        await expect(ann.locator("#status")).to_have_text("Your move: Black.")
        assert await ann.evaluate(FOCUSED_POINT) == "h8"
        for key in "j10":
            await ann.keyboard.press(key)
        assert await ann.evaluate(FOCUSED_POINT) == "j10"
        await ann.keyboard.press("Enter")
        await hal_sees(hal, "j10")
        await ann.keyboard.press("Shift+Tab")
        assert await ann.evaluate(FOCUSED_TAG) != "svg"  # the board's point was its one stop


async def test_points_clicked_leave_the_board_one_tab_stop(browser: Browser) -> None:
    """ann clicks three points with the mouse: the board is still one Tab stop, the
    last point clicked (each point clicked had stayed a Tab stop of its own, so Tab went
    through them all before the buttons)."""
    async with people(browser) as crowd:
        ann, hal, room = await crowd.ann_against_hal()
        for mine, his in (("c3", "a1"), ("m13", "a2"), ("c13", None)):
            await point(ann, mine).click()
            await point(ann, mine).click()  # (two clicks: a mouse's first one previews)
            await hal_sees(hal, mine)
            if his is not None:
                await hal.move(room, his)
                await hal_sees(hal, his)
        stops = ann.locator("#room-view svg [data-point][tabindex='0']")
        await expect(stops).to_have_count(1)
        assert await stops.get_attribute("data-point") == "c13"


async def test_a_point_typed_on_a_french_keyboard_is_the_one_meant(browser: Browser) -> None:
    """On AZERTY the digit row types _ for 8 without Shift: h then that key takes the
    cursor to h8, and Enter plays h8 (the _ was dropped, and Enter played the point the
    arrows had left the cursor on); a letter alone then Enter is said, not played."""
    async with people(browser) as crowd:
        ann, hal, _ = await crowd.ann_against_hal()
        assert await ann.evaluate(FOCUSED_POINT) == "h8"
        await ann.keyboard.press("ArrowRight")
        await ann.keyboard.press("j")
        await ann.keyboard.press("Enter")
        await expect(ann.locator("#status")).to_have_text(
            "j is no point of this board: type its letter and row, as h8."
        )
        await ann.keyboard.press("h")
        await ann.evaluate(
            """() => document.activeElement.dispatchEvent(new KeyboardEvent("keydown",
                { key: "_", code: "Digit8", bubbles: true, cancelable: true }))"""
        )
        assert await ann.evaluate(FOCUSED_POINT) == "h8"
        await ann.keyboard.press("Enter")
        await hal_sees(hal, "h8")


async def test_a_point_past_a_19x19_boards_letters_is_said_to_be_off_the_board(
    browser: Browser,
) -> None:
    """On 19x19, t19 typed is said to be off the board with its letters and rows (it was
    told to type "its letter and row, as h8", which t19 is); the keys' help gives the
    centre, j10, and on 5x5 c3, where h8 is no point."""
    async with people(browser) as crowd:
        ann, _, _ = await crowd.ann_against_hal(size=19)
        await expect(ann.locator("#room-view .keys-hint")).to_contain_text("a point typed (j10)")
        for key in "t19":
            await ann.keyboard.press(key)
        await ann.keyboard.press("Enter")
        await expect(ann.locator("#status")).to_have_text(
            "t19 is not on this 19x19 board (columns a-s, rows 1-19)."
        )
        small, _, _ = await crowd.ann_against_hal(size=5)
        await expect(small.locator("#room-view .keys-hint")).to_contain_text("a point typed (c3)")


@pytest.mark.parametrize("phone", [False, True])
async def test_a_rematch_starts_with_the_keys_on_the_board(browser: Browser, phone: bool) -> None:
    """ann accepts hal's rematch with Enter: the new game's board has the keys (they
    fell to the page's body, where her arrows scrolled the page with her first stone's
    time running); on a phone, where the board takes no keys, the room's title has the
    focus, where a screen reader reads on (the body, seven Tabs from the board)."""
    async with people(browser) as crowd:
        ann, hal, room = await crowd.ann_against_hal(phone=phone)
        await hal.send(m.Resign(room=room))
        await hal.send(m.Offer(room=room, kind="rematch"))
        await ann.locator("#accept").focus()
        await ann.keyboard.press("Enter")
        rematch = await hal.until_event(Rematch)
        await expect(ann).to_have_url(re.compile(f"#/room/{rematch.room}$"))
        await expect(ann.locator("#status")).to_contain_text("hal")
        if phone:
            await expect(ann.locator("#room-view h1.room-title")).to_be_focused()
        else:
            assert await ann.evaluate(FOCUSED_POINT) is not None


async def test_a_screen_reader_tells_the_lobbys_forms_and_the_boards_rows_apart(
    browser: Browser,
) -> None:
    """The lobby's forms are named by their headings (three fields named "Rule" were told
    apart by nothing), a phone's list of rooms keeps its column heads for a screen reader
    (its cells read "5+3", "waiting" with no column), and the board's rows are named by
    their numbers (a row was named by all its points' names run together)."""
    async with people(browser) as crowd:
        dan = await crowd.client("dan")
        await dan.create(seat="black")
        phone = await crowd.page("ann", phone=True)
        for form in ("Quick match", "New room", "AI vs AI"):
            rule = phone.get_by_role("form", name=form).get_by_role("combobox", name="Rule")
            await expect(rule).to_have_count(1)
        heads = phone.locator("#rooms").get_by_role("columnheader")
        assert "Clock" in await heads.all_inner_texts()
        await expect(phone.locator("#rooms thead")).not_to_be_in_viewport()
        ann, _hal, _room = await crowd.ann_against_hal()
        board = ann.get_by_role("grid")
        await expect(board.get_by_role("row", name="Row 15", exact=True)).to_have_count(1)
        await expect(board.get_by_role("row", name="Row 1", exact=True)).to_have_count(1)


async def test_the_lobby_says_how_to_play(browser: Browser) -> None:
    """A newcomer finds the rules in the lobby, folded away under "How to play" (nothing
    taught them: "five or more wins" said nothing to one who did not know the five)."""
    async with people(browser) as crowd:
        ann = await crowd.page("ann", phone=True)
        rules = ann.locator("#how-to-play")
        await expect(rules.locator("summary")).to_have_text("How to play")
        await expect(rules.locator("p").first).to_be_hidden()
        await rules.locator("summary").tap()
        await expect(rules.locator("p")).to_have_count(4)
        await expect(rules.locator("p").nth(1)).to_contain_text("five of their stones in a row")


async def test_the_pages_title_says_where_one_is(browser: Browser) -> None:
    """The title, which a screen reader reads and the tabs' strip shows, names the view
    and a game's players (it was "Gomoku Arena" everywhere)."""
    async with people(browser) as crowd:
        ann, _hal, _room = await crowd.ann_against_hal()
        await expect(ann).to_have_title("ann – hal · Gomoku Arena")  # noqa: RUF001
        await ann.click("header nav >> text=Leaderboard")
        await expect(ann).to_have_title("Leaderboard · Gomoku Arena")
        await ann.click("header nav >> text=Lobby")
        await expect(ann).to_have_title("Lobby · Gomoku Arena")


async def test_leaving_a_running_game_puts_the_keys_on_the_lobbys_heading(
    browser: Browser,
) -> None:
    """ann leaves her running game with the keys (Enter on Leave, the question accepted):
    they land on the lobby's "Your games", just above the way back to the game (they
    fell to the page's body: the heading the page chose was drawn again at once)."""
    async with people(browser) as crowd:
        ann, _hal, room = await crowd.ann_against_hal()
        ann.on("dialog", lambda dialog: asyncio.ensure_future(dialog.accept()))
        await ann.locator("#leave").focus()
        await ann.keyboard.press("Enter")
        await expect(ann.locator("#lobby-view")).to_be_visible()
        heading = ann.locator("#lobby-view h2", has_text="Your games")
        await expect(heading).to_be_focused()
        await ann.keyboard.press("Tab")
        await expect(ann.locator(f'#lobby-view a[data-room="{room}"]')).to_be_focused()


async def test_the_lobby_keeps_a_keyboard_players_place_when_rooms_change(
    browser: Browser,
) -> None:
    """ann's keys are on bob's room's Join when carl opens a room and dan sits down in
    bob's: they stay on that Join (they fell to the page's body at each change, and an
    Enter then did nothing); the lobby's first place is a heading one sees."""
    async with people(browser) as crowd:
        ann = await crowd.page("ann")
        assert await ann.evaluate("() => document.activeElement?.getClientRects()[0]?.width > 1")
        bob = await crowd.client("bob")
        room = (await bob.create(seat="black")).room.id
        join = ann.locator(f'tr[data-room="{room}"] a.join')
        await join.focus()
        carl = await crowd.client("carl")
        other = (await carl.create(seat="black")).room.id
        await expect(ann.locator(f'tr[data-room="{other}"]')).to_have_count(1)
        await expect(join).to_be_focused()
        dan = await crowd.client("dan")
        await dan.join(other)
        await expect(ann.locator(f'tr[data-room="{other}"]')).to_contain_text("dan")
        await expect(join).to_be_focused()


async def test_a_review_opened_with_the_keys_has_them_on_its_heading(browser: Browser) -> None:
    """ann presses Enter on Review after her game: the record's heading has the keys once
    it is drawn (they fell to the page's body when "Loading…" gave way to the record),
    and Tab reaches Download past the move list in one stop."""
    async with people(browser) as crowd:
        ann, hal, room = await two_stones_down(crowd)
        await hal.send(m.Resign(room=room))
        await ann.locator("#review").focus()
        await ann.keyboard.press("Enter")
        heading = ann.locator("#review-view h1")
        await expect(heading).to_have_text("ann (Black) – hal (White)")  # noqa: RUF001
        await expect(heading).to_be_focused()
        # The move list is one Tab stop (the arrows step): each move was one of its own.
        stops = 0
        while await ann.evaluate("document.activeElement.textContent") != "Download JSON":
            await ann.keyboard.press("Tab")
            stops += 1
            assert stops < 20
        tabbable = "#review-view .review-moves button:not([tabindex='-1'])"
        assert await ann.locator(tabbable).count() == 1


async def test_a_rename_on_a_records_page_reads_it_again(browser: Browser) -> None:
    """ann renames herself on her profile page: the page shows her profile under her
    new name (it said "Not connected to the server right now." for good, under an
    "Online" badge), and the keys are on its heading."""
    async with people(browser) as crowd:
        ann = await crowd.page("ann")
        await ann.goto(f"{crowd.url}#/profile")
        await expect(ann.locator("#profile-view h1")).to_have_text("ann")
        await ann.click("#rename")
        await ann.fill("#name-input", "anna")
        await ann.press("#name-input", "Enter")
        await expect(ann.locator("#profile-view h1")).to_have_text("anna")
        await expect(ann.locator("#profile-view")).not_to_contain_text("Not connected")
        await expect(ann.locator("#profile-view h1")).to_be_focused()


async def test_escape_takes_the_keys_between_the_board_and_an_offers_answers(
    browser: Browser,
) -> None:
    """hal asks for a takeback while ann's keys are on the board: Escape takes them to
    Accept and back (as the terminal's Esc; the alert was heard, then three Tabs stood
    between), and Escape in the chat's line returns to the board too."""
    async with people(browser) as crowd:
        ann, hal, room = await two_stones_down(crowd)
        await point(ann, "h8").focus()
        await hal.send(m.Offer(room=room, kind="takeback"))
        await expect(ann.locator(".offer")).to_contain_text("Escape from the board to answer.")
        await ann.keyboard.press("Escape")
        await expect(ann.locator("#accept")).to_be_focused()
        await ann.keyboard.press("Escape")
        assert await ann.evaluate(FOCUSED_POINT) == "h8"
        await ann.keyboard.press("Escape")
        await ann.keyboard.press("Tab")  # Accept, Decline
        await ann.keyboard.press("Enter")
        assert (await hal.until_event(Answered)).accept is False
        await ann.locator("#chat-input").focus()
        await ann.keyboard.press("Escape")
        assert await ann.evaluate(FOCUSED_POINT) == "h8"
        await ann.keyboard.press("Escape")  # no offer: the keys stay on the board
        assert await ann.evaluate(FOCUSED_POINT) == "h8"


async def test_a_screen_reader_hears_each_thing_once(browser: Browser) -> None:
    """What a screen reader is given, as a blind player met it: the status line is no
    live region (results, offers and refusals were read two or three times over, with
    a toast, the room log and the announcer); the log's lines of an offer to her and of
    the result are shown, not read (their alert and the announcer say them); answering
    an offer does not fill its alert again; the move list says each stone's colour."""
    async with people(browser) as crowd:
        ann, hal, room = await two_stones_down(crowd)
        assert await ann.locator("#status").get_attribute("aria-live") is None
        assert await ann.locator("#status").get_attribute("role") is None
        await expect(ann.locator("#moves li").first).to_have_attribute("aria-label", "h8, Black")
        await hal.send(m.Offer(room=room, kind="takeback"))
        await expect(ann.locator(".offer")).to_contain_text("hal asks to take back a move.")
        offered = ann.locator("#chat-log li.event", has_text="hal asks to take back a move")
        await expect(offered).to_have_attribute("aria-hidden", "true")
        same = await ann.evaluate(
            """() => {
                const words = document.querySelector('.offer span');
                document.querySelector('#decline').click();
                return document.querySelector('.offer span') === words;
            }"""
        )
        assert same  # the alert was not made again (and read out again)
        await hal.until_event(Answered)
        await hal.send(m.Resign(room=room))
        await expect(ann.locator("#announce")).to_have_text("Black wins by resignation. You win.")
        ended = ann.locator("#chat-log li.event", has_text="Black wins by resignation")
        await expect(ended).to_have_attribute("aria-hidden", "true")
        await expect(ann.locator("#room-view .keys-hint")).to_be_hidden()  # no more to play


async def test_a_keyboard_player_whose_game_starts_in_her_room_has_the_board(
    browser: Browser,
) -> None:
    """ann waits in her room; hal sits down and the game starts: the keys are on the
    board (they stayed on the room's title, and h8 typed did nothing, silently); a full
    stop takes the cursor to the last move; back in the room after a reload, hal's last
    stone is said."""
    async with people(browser) as crowd:
        ann, hal, room = await ann_plays_hal(crowd)
        await expect(ann.locator("#status")).to_have_text("Your move: Black.")
        await expect(ann.locator("#announce")).to_have_text("Your move: Black.")
        for key in ["h", "8", "Enter"]:
            await ann.keyboard.press(key)
        await hal_sees(hal, "h8")
        await hal.move(room, "a1")
        await expect(ann.locator("#status")).to_have_text("Your move: Black.")
        await ann.keyboard.press("ArrowUp")
        await ann.keyboard.press(".")
        assert await ann.evaluate(FOCUSED_POINT) == "a1"
        await ann.reload()
        await expect(ann.locator("#announce")).to_have_text("hal (White) played a1.")


async def test_quick_match_says_its_wait_once_and_keeps_cancel(browser: Browser) -> None:
    """A keyboard player asks for a quick match: the wait is said once (its counter was
    read out each second), the keys go to Cancel and stay there as the counter runs
    (Cancel was made again each second, and lost them), and Enter cancels."""
    async with people(browser) as crowd:
        ann = await crowd.page("ann")
        await ann.locator("#quick-button").focus()
        await ann.keyboard.press("Enter")
        said = ann.locator("#quick-form [role=status]")
        await expect(said).to_have_text("Waiting for an opponent.")
        await expect(ann.locator(".queue-status")).to_contain_text("Waiting for an opponent: 0:0")
        await expect(ann.locator("#cancel-queue")).to_be_focused()
        await ann.wait_for_timeout(2200)
        await expect(ann.locator("#cancel-queue")).to_be_focused()
        await expect(said).to_have_text("Waiting for an opponent.")
        await ann.keyboard.press("Enter")
        await expect(ann.locator(".queue-status")).to_be_hidden()
        await expect(ann.locator("#quick-button")).to_be_enabled()


async def test_the_chat_log_stays_where_a_reader_scrolled_it(browser: Browser) -> None:
    """A busy room: with the log scrolled up to read, new lines no longer pull it back
    to the newest (every line did, so nothing older could be read); scrolled back down,
    it follows the new lines again."""
    async with people(browser) as crowd:
        ann, _hal, room = await crowd.ann_against_hal()
        fans = [await crowd.client(f"fan{i}") for i in range(5)]
        log = ann.locator("#chat-log")
        for fan in fans:
            await fan.join(room, role="spectator")
        for fan in fans[:4]:  # five lines each: the most the chat limit lets through
            for n in range(5):
                await fan.send(m.Chat(room=room, text=f"{fan.player[-3:]} says {n}"))
        await expect(log.locator("li.chat")).to_have_count(20)
        overflow = "(e) => e.scrollHeight > e.clientHeight + 50"
        assert await log.evaluate(overflow)
        await log.evaluate("(e) => { e.scrollTop = 0; }")
        await fans[4].send(m.Chat(room=room, text="one more"))
        await expect(log.locator("li.chat").last).to_have_text("fan4 (watching): one more")
        assert await log.evaluate("(e) => e.scrollTop") == 0
        await log.evaluate("(e) => { e.scrollTop = e.scrollHeight; }")
        await fans[4].send(m.Chat(room=room, text="and another"))
        await expect(log.locator("li.chat").last).to_have_text("fan4 (watching): and another")
        at_bottom = "(e) => e.scrollHeight - e.scrollTop - e.clientHeight < 2"
        assert await log.evaluate(at_bottom)


# --- low vision and colour blindness ---------------------------------------------------------


def contrast(a: str, b: str) -> float:
    """The WCAG contrast ratio of two computed colours ("rgb(r, g, b)")."""

    def luminance(colour: str) -> float:
        rgb = [float(v) / 255 for v in re.findall(r"[\d.]+", colour)[:3]]
        r, g, b = (c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in rgb)
        return 0.2126 * r + 0.7152 * g + 0.0722 * b

    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


async def edged_on_the_wood(page: Page, mark: str) -> None:
    """The board's ``mark`` (``.forbidden``, ``.hint``) shows in both schemes: its dark
    edge against the wood, and its colour against the edge, at 3:1 or more."""
    board = page.locator("#room-view svg.board")
    for scheme in ("light", "dark"):
        await page.emulate_media(color_scheme=scheme)
        wood = await style(board.locator(".wood"), "fill")
        edge, colour = await tones(board.locator(mark))
        assert contrast(edge, wood) >= 3, (scheme, edge, wood)
        assert contrast(colour, edge) >= 3, (scheme, colour, edge)


async def style(target: Locator, prop: str) -> str:
    """A computed style of the (first) element ``target`` finds."""
    return str(await target.first.evaluate("(e, p) => getComputedStyle(e)[p]", prop))


TONES = """(mark) => [mark, ...mark.querySelectorAll("*")]
  .filter((e) => e.matches("line, rect"))
  .map((e) => [parseFloat(getComputedStyle(e).strokeWidth), getComputedStyle(e).stroke])
  .sort((a, b) => b[0] - a[0])"""


async def tones(mark: Locator) -> tuple[str, str]:
    """A board mark's outer stroke (the widest) and inner one (the same if drawn once)."""
    strokes = await mark.first.evaluate(TONES)
    return strokes[0][1], strokes[-1][1]


async def play_out(ann: Page, hal: TestClient, room: str, hers: list[str], his: list[str]) -> None:
    """ann clicks her points, hal answers each with his (as long as he has one). Each of
    her clicks waits for his stone on her page: clicked before it came, the page says it
    is not her move and plays nothing (a loaded run lost the winning stone so)."""
    for n, mine in enumerate(hers):
        await point(ann, mine).click()
        await hal.until_event(Moved)
        if n < len(his):
            await hal.move(room, his[n])
            await hal.until_event(Moved)
            await moves_shown(ann, 2 * n + 2)


async def test_the_winning_five_is_drawn_over_its_stones_and_said_where_it_is(
    browser: Browser,
) -> None:
    """The five's line is drawn over its stones (it was under them, in red alone), dark
    under light so that it shows on the wood and on either colour of stone in both
    schemes, and the result says where the five runs, as the terminal client does."""
    async with people(browser) as crowd:
        ann, hal, room = await crowd.ann_against_hal()
        await play_out(ann, hal, room, ["i8", "h8", "g8", "f8", "e8"], ["a1", "a2", "a3", "a4"])
        said = "Black wins with five in a row from e8 to i8"
        await expect(ann.locator("#result strong")).to_have_text(said)
        await expect(ann.locator("#status")).to_have_text(said)
        await expect(ann.locator("#announce")).to_have_text(f"{said}. You win.")
        over = "(m) => [...m.children].findIndex((e) => e.matches('.winline'))"
        last_stone = "(m) => [...m.children].findLastIndex((e) => e.matches('.stone'))"
        marks = ann.locator("#room-view .marks")
        assert await marks.evaluate(over) > await marks.evaluate(last_stone)
        board = ann.locator("#room-view svg.board")
        for scheme in ("light", "dark"):
            await ann.emulate_media(color_scheme=scheme)
            edge, inner = await tones(board.locator(".winline"))
            wood = await style(board.locator(".wood"), "fill")
            black = await style(board.locator(".stone.black"), "fill")
            white = await style(board.locator(".stone.white"), "fill")
            assert contrast(edge, wood) >= 3, (scheme, edge, wood)
            assert contrast(edge, white) >= 3, (scheme, edge, white)
            assert contrast(inner, edge) >= 3, (scheme, inner, edge)
            assert contrast(inner, black) >= 3, (scheme, inner, black)


async def test_renjus_forbidden_cross_shows_on_the_wood_in_both_schemes(browser: Browser) -> None:
    """Black's forbidden point's cross has a dark edge under its colour: 3:1 or more
    against the light and the dark scheme's wood (it was 1.5:1 on the dark one)."""
    async with people(browser) as crowd:
        hal = await crowd.client("hal")
        room = (await hal.create(rule="renju", seat="white")).room.id
        ann = await crowd.page("ann", hash=f"#/room/{room}")
        await hal.until_event(GameStarted)
        hers, his = ["h8", "i8", "j9", "j10"], ["a1", "a3", "a5", "a7"]
        await play_out(ann, hal, room, hers, his)
        await moves_shown(ann, 8)
        await edged_on_the_wood(ann, ".forbidden")


async def test_the_focus_is_two_toned_on_the_page_and_on_the_board(browser: Browser) -> None:
    """The keyboard's focus, on the board and on a button, is black against white: one of
    its tones stands 3:1 or more against what is around it in either scheme (amber was
    1.1:1 on the wood and 1.9:1 on the page)."""
    async with people(browser) as crowd:
        ann, _hal, _room = await two_stones_down(crowd)
        await point(ann, "h8").focus()
        await ann.keyboard.press("ArrowLeft")
        square = ann.locator("#room-view .point:focus-visible")
        await expect(square).to_have_attribute("data-point", "g8")
        await ann.locator("#offer-draw").focus()  # after a key: shown as the keyboard's
        button = ann.locator("#offer-draw:focus-visible")
        await expect(button).to_have_count(1)
        board = ann.locator("#room-view svg.board")
        for scheme in ("light", "dark"):
            await ann.emulate_media(color_scheme=scheme)
            await point(ann, "g8").focus()
            wood = await style(board.locator(".wood"), "fill")
            black = await style(board.locator(".stone.black"), "fill")
            ring = await style(square, "stroke")
            assert "focus-halo" in await style(square, "filter")
            halo = await style(ann.locator("#focus-halo feFlood"), "floodColor")
            assert contrast(ring, wood) >= 3, (scheme, ring, wood)
            assert contrast(ring, halo) >= 3, (scheme, ring, halo)
            assert contrast(halo, black) >= 3, (scheme, halo)
            await ann.locator("#offer-draw").focus()
            page = await style(ann.locator("body"), "backgroundColor")
            ring = await style(button, "outlineColor")
            shadow = re.search(r"rgba?\([^)]*\)", await style(button, "boxShadow"))
            halo = shadow.group(0) if shadow else page
            assert contrast(ring, halo) >= 3, (scheme, ring, halo)
            assert max(contrast(ring, page), contrast(halo, page)) >= 3, (scheme, ring, halo)


async def test_each_seat_says_its_colour_and_forced_colours_keep_the_turn(
    browser: Browser,
) -> None:
    """Under forced colours (Windows high contrast, where both dots were the same ring
    and the accent was gone) each seat says Black or White in words and the seat to act
    keeps a frame the other has not; each dot sits on a ring of wood, as a stone on the
    board (on the dark card Black's looked like an empty ring, White's symbol)."""
    async with people(browser) as crowd:
        ann, _hal, _room = await crowd.ann_against_hal()
        await expect(ann.locator(".seat.black .colour")).to_have_text("Black")
        await expect(ann.locator(".seat.white .colour")).to_have_text("White")
        await expect(ann.locator(".seat.black")).to_have_class(re.compile("to-act"))
        await ann.emulate_media(forced_colors="active")
        for colour in ("black", "white"):  # the word is seen, not only read out
            box = await ann.locator(f".seat.{colour} .colour").bounding_box()
            assert box is not None, colour
            assert box["width"] > 10, (colour, box)

        async def frame(colour: str) -> tuple[str, str]:
            seat = ann.locator(f".seat.{colour}")
            return await style(seat, "outlineStyle"), await style(seat, "outlineWidth")

        assert await frame("black") == ("solid", "3px")
        assert await frame("white") != await frame("black")
        for scheme in ("dark", "light"):
            await ann.emulate_media(forced_colors="none", color_scheme=scheme)
            dot = ann.locator(".seat.black .dot")
            fill = await style(dot, "backgroundColor")
            ring = re.match(r"rgba?\([^)]*\)", await style(dot, "boxShadow"))
            assert ring is not None, await style(dot, "boxShadow")
            assert contrast(fill, ring.group(0)) >= 3, (scheme, fill, ring.group(0))


async def test_a_low_clock_shows_without_colour_and_is_said_once(browser: Browser) -> None:
    """Under ten seconds a clock is a reversed block (it only turned red, the running one
    being green: alike to a red-green colour-blind eye), framed under forced colours,
    and one's own is said once to a screen reader."""
    async with people(browser) as crowd:
        hal = await crowd.client("hal")
        twelve = TimeControl(base_ms=12_000, inc_ms=0)
        room = (await hal.create(seat="white", time=twelve)).room.id
        ann = await crowd.page("ann", hash=f"#/room/{room}")
        await hal.until_event(GameStarted)
        await play_out(ann, hal, room, ["h8"], ["a1"])
        said = "Under ten seconds left on your clock."
        await expect(ann.locator("#announce")).to_have_text(said, timeout=WAIT_MS)
        clock = ann.locator("#clock-black")
        await expect(clock).to_have_class(re.compile(r"\blow\b"))
        for scheme in ("light", "dark"):
            await ann.emulate_media(color_scheme=scheme)
            block = await style(clock, "backgroundColor")
            seat = await style(ann.locator(".seat.black"), "backgroundColor")
            assert contrast(block, seat) >= 3, (scheme, block, seat)
            assert contrast(await style(clock, "color"), block) >= 4.5, (scheme, block)
        await ann.emulate_media(forced_colors="active")
        assert await style(clock, "outlineStyle") == "solid"
        assert await style(ann.locator("#clock-white"), "outlineStyle") == "none"


async def test_the_resign_button_reads_in_the_dark_scheme(browser: Browser) -> None:
    """Resign's words stand 4.5:1 against its red in both schemes (white on the dark
    scheme's lighter red was 3.4:1)."""
    async with people(browser) as crowd:
        ann, _hal, _room = await crowd.ann_against_hal()
        resign = ann.locator("#resign")
        await expect(resign).to_be_visible()
        for scheme in ("light", "dark"):
            await ann.emulate_media(color_scheme=scheme)
            words, red = await style(resign, "color"), await style(resign, "backgroundColor")
            assert contrast(words, red) >= 4.5, (scheme, words, red)


async def test_the_ai_level_offered_is_the_weakest_then_the_last_played(
    browser: Browser, thinker: Thinker
) -> None:
    """A newcomer's first game against the AI is offered at the weakest level (it was
    intermediate); once another level was played, the page offers that one, after a
    reload too."""
    async with people_and_an_ai(browser, thinker) as crowd:
        ann = await crowd.page("ann")
        level = ann.locator("#create-form select[name=level]")
        await expect(level).to_have_value("beginner")
        await play_the_ai_as_black(ann, "novice")
        await ann.reload()
        await ann.goto(ann.url.split("#")[0] + "#/")
        await expect(level).to_have_value("novice")


async def test_the_address_opened_anew_opens_the_one_game_in_progress(
    browser: Browser, thinker: Thinker
) -> None:
    """A player who closed the page mid-game and opens the server's address again is back
    in the game, as the terminal client is (they found the lobby); a reload on the lobby
    stays there, and the lobby's row of their own room reads "Your game", not "Watch"."""
    async with people_and_an_ai(browser, thinker) as crowd:
        ann = await crowd.page("ann")
        await play_the_ai_as_black(ann, "beginner")
        room = ann.url.split("#/room/")[1]
        again = await crowd.page("ann", same_as=ann)  # the window closed and opened again
        await expect(again.locator("#name-white")).to_contain_text("AI beginner")
        assert again.url.endswith(f"#/room/{room}")
        await again.goto(again.url.split("#")[0] + "#/")
        row = again.locator(f"tr[data-room='{room}']")
        await expect(row.locator("a.mine")).to_have_text("Your game")
        await expect(row.locator("a.watch")).to_have_count(0)
        await again.reload()
        await expect(row.locator("a.mine")).to_have_text("Your game")
        assert again.url.endswith("#/")


async def test_a_full_boards_draw_reads_as_the_terminal_says_it(browser: Browser) -> None:
    """A draw on a full board reads "Draw (board full)" on the page, the terminal's words
    (it read "no move left", on a board with no empty point)."""
    async with people(browser) as crowd:
        ann = await crowd.page("ann")
        text = await ann.evaluate(
            """async () => {
                const room = await import("/js/room.js");
                return room.resultText({ winner: null, reason: "board-full", line: null }, 225);
            }"""
        )
        assert text == f"Draw ({reason_words(Reason.BOARD_FULL, drawn=True)})"


async def test_a_click_on_a_stone_says_the_point_is_taken(
    browser: Browser, thinker: Thinker
) -> None:
    """A click on a point with a stone says why nothing was played, as the terminal and
    Enter on the point do (a beginner's click there did nothing they could see)."""
    async with people_and_an_ai(browser, thinker) as crowd:
        ann = await crowd.page("ann")
        await play_the_ai_as_black(ann, "beginner")
        await point(ann, "h8").click()
        await moves_shown(ann, 2)
        await point(ann, "h8").click()
        await expect(ann.locator("#status")).to_have_text("h8 is already taken.")
        await moves_shown(ann, 2)


async def test_a_hint_just_after_a_refusal_stays_and_shows_on_the_wood(
    browser: Browser, thinker: Thinker
) -> None:
    """A hint asked while a refusal is on the status line stays there when the refusal's
    time is up (the refusal's end wrote "Your move" over it), and its diamond stands 3:1
    against the wood in both schemes."""
    async with people_and_an_ai(browser, thinker) as crowd:
        ann = await crowd.page("ann")
        await play_the_ai_as_black(ann, "beginner")
        await ann.clock.install()
        await point(ann, "h8").click()
        await moves_shown(ann, 2)
        status = ann.locator("#status")
        await point(ann, "h8").focus()
        await ann.keyboard.press("Enter")
        await expect(status).to_have_text("h8 is already taken.")
        await ann.click("#hint")
        hint = re.compile(r"^Hint: [a-o]\d+ \(")
        await expect(status).to_have_text(hint)
        await ann.clock.fast_forward(7_000)  # the refusal's time is up
        await expect(status).to_have_text(hint)
        await expect(status).not_to_have_class(re.compile("refusal"))
        await edged_on_the_wood(ann, ".hint")


async def test_a_desktop_zoomed_in_gets_a_bigger_board_not_a_smaller_one(
    browser: Browser,
) -> None:
    """A 1280x800 window at 200% (640x400 CSS pixels, a mouse): the board is no smaller
    on the screen than at 100% (it was 624 screen pixels for 656), and with the header
    scrolled away it and the status line under it fit in the window."""
    async with people(browser) as crowd:
        ann, _hal, room = await crowd.ann_against_hal()
        full = await box(ann.locator(".board-host"))
        zoom = ViewportSize(width=640, height=400)
        zoomed = await crowd.page("ann", viewport=zoom, hash=f"#/room/{room}", same_as=ann)
        await expect(zoomed.locator("#status")).to_have_text("Your move: Black.")
        board = zoomed.locator(".board-host")
        assert 2 * (await box(board))["width"] >= full["width"], (await box(board), full)
        await board.evaluate("(e) => e.scrollIntoView()")
        status = await box(zoomed.locator("#status"))
        assert (await box(board))["y"] >= -1  # (a fraction of a pixel above)
        assert status["y"] + status["height"] <= zoom["height"], status


async def test_a_muted_watchers_chat_leaves_the_page_and_comes_back_unmuted(
    browser: Browser,
) -> None:
    """Ticking a watcher in the mute box hides their lines, the one before too, and
    their next, through a reload; hal's line still shows; unticked, theirs come back."""
    async with people(browser) as crowd:
        ann, hal, room = await crowd.ann_against_hal()
        troll = await crowd.client("troll")
        await troll.join(room, role="spectator")
        await troll.send(m.Chat(room=room, text="you play like a potato"))
        log = ann.locator("#chat-log")
        await expect(log).to_contain_text("troll (watching): you play like a potato")
        await ann.click("#mute summary")
        await ann.get_by_label("troll (watching)").check()
        await expect(log).not_to_contain_text("potato")
        await expect(ann.locator("#mute summary")).to_have_text("Muted: 1")
        await troll.send(m.Chat(room=room, text="still here, potato"))
        await hal.send(m.Chat(room=room, text="good luck"))
        await expect(log).to_contain_text("hal: good luck")
        await expect(log).not_to_contain_text("potato")

        await ann.reload()
        await expect(ann.locator("#chat-log")).to_contain_text("hal: good luck")
        await expect(ann.locator("#chat-log")).not_to_contain_text("potato")
        await ann.click("#mute summary")
        await ann.get_by_label("troll (watching)").uncheck()
        await expect(ann.locator("#chat-log")).to_contain_text(
            "troll (watching): still here, potato"
        )
        await expect(ann.locator("#mute summary")).to_have_text("Mute chat…")


async def test_a_right_to_left_name_leaves_the_rating_change_in_order(browser: Browser) -> None:
    """A rated game against a player named in Arabic: the rating-change line reads
    name, then the old and new ratings left to right (the name's direction turned the
    figures around, "(242+) ?1742 → 1500 :محمد", a winner seen going down)."""
    name = "\u0645\u062d\u0645\u062f"
    async with people(browser) as crowd:
        mo = await crowd.client(name)
        room = (await mo.create(seat="white", rated=True)).room.id
        ann = await crowd.page("ann", hash=f"#/room/{room}")
        await mo.until_event(GameStarted)
        await point(ann, "h8").click()
        await mo.until_event(Moved)
        await mo.move(room, "a1")
        await moves_shown(ann, 2)
        await mo.send(m.Resign(room=room))
        line = ann.locator("#result .rating-change", has_text=name)
        await expect(line).to_have_count(1)
        name_left, before_left, after_left = await line.evaluate(
            """(div) => {
                const name = div.querySelector("bdi").getBoundingClientRect().left;
                const text = div.lastChild;  // ": 1500 → 1662? (+162)"
                const at = (i) => {
                    const range = document.createRange();
                    range.setStart(text, i);
                    range.setEnd(text, i + 1);
                    return range.getBoundingClientRect().left;
                };
                return [name, at(2), at(text.length - 3)];
            }"""
        )
        assert name_left < before_left < after_left


async def test_rows_stay_still_under_a_mouse_and_waiting_rooms_come_first(
    browser: Browser,
) -> None:
    """The lobby lists rooms waiting for a player before games being played; with the
    mouse on the list, a room coming and one going change no row under it (a click
    aimed at a game's Watch joined the rated room that slid under the pointer) until the
    mouse leaves the list; the heading counts the rooms."""
    async with people(browser) as crowd:
        hal, cy, dan = [await crowd.client(n) for n in ("hal", "cy", "dan")]
        playing = (await hal.create(seat="white")).room.id
        await cy.join(playing)
        waiting = (await dan.create(seat="black")).room.id
        ann = await crowd.page("ann")
        rows = ann.locator("#rooms tbody tr")
        await expect(rows).to_have_count(2)
        assert await rows.nth(0).get_attribute("data-room") == waiting
        await expect(ann.locator("#rooms .room-count")).to_have_text(
            "· 2 listed, 1 waiting for a player"
        )
        watch = rows.nth(1).locator(".watch")
        await watch.hover()
        eve = await crowd.client("eve")
        await eve.create(seat="black")  # a waiting room: it would come first
        await dan.send(m.Leave(room=waiting))
        await expect(ann.locator("#rooms .room-count")).to_contain_text(
            "changes show when the pointer leaves the list"
        )
        assert [await r.get_attribute("data-room") for r in await rows.all()] == [waiting, playing]
        await watch.click()
        await expect(ann).to_have_url(re.compile(f"#/watch/{playing}$"))


async def test_a_phone_reaches_the_rooms_past_the_forms_in_one_tap(browser: Browser) -> None:
    """On a phone the lobby's forms come first and take screens: a button at the top
    says how many rooms wait for a player and brings the list into view; with the keys,
    it brings them too (they stayed on the button: the next Tab was the first form's)."""
    async with people(browser) as crowd:
        dan = await crowd.client("dan")
        room = (await dan.create(seat="black")).room.id
        ann = await crowd.page("ann", phone=True)
        jump = ann.locator(".to-rooms")
        await expect(jump).to_have_text("Rooms ↓ (1 waiting for a player)")
        await expect(ann.locator("#rooms tbody tr")).not_to_be_in_viewport()
        await jump.tap()
        await expect(ann.locator("#rooms tbody tr")).to_be_in_viewport()
        await ann.evaluate("window.scrollTo(0, 0)")
        await jump.focus()
        await ann.keyboard.press("Enter")
        await expect(ann.locator("#rooms h2")).to_be_focused()
        await ann.keyboard.press("Tab")
        await expect(ann.locator(f'tr[data-room="{room}"] a.join')).to_be_focused()
        await expect(ann.locator(f'tr[data-room="{room}"] a.join')).to_be_in_viewport()


async def test_a_search_says_how_many_rooms_in_the_list_wait_with_its_settings(
    browser: Browser,
) -> None:
    """Quick match pairs players who search, not rooms: while ann searches for
    freestyle 5+3, the waiting line says that two rooms in the list wait for a player
    with these settings (a player waited with three of them below), and counts one
    fewer once one is taken."""
    five = TimeControl(base_ms=300_000, inc_ms=3_000)
    async with people(browser) as crowd:
        dan, eve = await crowd.client("dan"), await crowd.client("eve")
        await dan.create(seat="black", time=five)
        taken = (await eve.create(seat="black", time=five)).room.id
        ann = await crowd.page("ann")
        await ann.select_option("#quick-form select[name=time]", "5+3")
        await ann.click("#quick-button")
        status = ann.locator(".queue-status")
        await expect(status).to_contain_text("· 2 such rooms open in the list")
        await (await crowd.client("fay")).join(taken)
        await expect(status).to_contain_text("· 1 such room open in the list")


async def test_your_games_says_when_the_opponent_is_away(browser: Browser) -> None:
    """Back in the lobby, ann's "Your games" says hal is away once his network goes
    (it said only whose turn it was, when the win may have been hers to claim)."""
    async with people(browser) as crowd:
        ann, hal, room = await crowd.ann_against_hal()
        await expect(ann.locator("#status")).to_have_text("Your move: Black.")
        await ann.click("header nav >> text=Lobby")
        game = ann.locator(f'.resume a[data-room="{room}"]')
        await expect(game).to_have_text("Your game with hal: your turn")
        await hal.ws.close()
        await expect(game).to_have_text("Your game with hal: your turn (hal is away)")


async def test_a_private_games_link_stays_and_an_early_resignation_says_it_is_unrated(
    browser: Browser,
) -> None:
    """Once a private rated game has begun its players still have its link to watch by,
    with the code (it went with the start, and the address bar's room id is no way in
    for a friend); resigning before the second stone says that nothing is rated."""
    async with people(browser) as crowd:
        ann = await crowd.page("ann")
        await ann.check("#create-form input[name=private]")
        await ann.check("#create-form input[name=rated]")
        await ann.select_option("#create-form select[name=seat]", "black")
        await ann.click("#create-button")
        code = await ann.locator("#invite-code").inner_text()
        hal = await crowd.client("hal")
        await hal.send(m.Join(code=code))
        room = (await hal.expect(m.Snapshot)).room.id
        await expect(ann.locator("#status")).to_have_text("Your move: Black.")
        await expect(ann.locator("#invite-code")).to_have_text(code)
        assert code in await ann.locator("#share-link").input_value()
        await expect(ann.locator(".share")).to_contain_text("Link to watch")
        asked: list[str] = []

        async def answer(dialog: Dialog) -> None:
            asked.append(dialog.message)
            await dialog.accept()

        ann.once("dialog", answer)
        await ann.click("#resign")
        await hal.event(GameOver, room)
        assert asked == ["Resign this game? Before its second stone, it is not rated."]
