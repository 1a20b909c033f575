-- Runs after lib/append_events.lua, which defines append_events().
-- KEYS: state hash, event stream. ARGV: count, now, every ms, event, max events, bell,
-- due ("1": the room fell due). Returns {kind, value}: kind 1 appended (value: seq), 2 held
-- (value: when it falls due), 0 nothing, -1 no such room.
if redis.call('EXISTS', KEYS[1]) == 0 then
  return {-1, 0}
end
if ARGV[7] == '1' then
  redis.call('HDEL', KEYS[1], 'count_due')
end
local count = tonumber(ARGV[1])
local now = tonumber(ARGV[2])
local shown = tonumber(redis.call('HGET', KEYS[1], 'shown') or '0')
if count == shown or redis.call('HEXISTS', KEYS[1], 'count_due') == 1 then
  return {0, 0}
end
local at = tonumber(redis.call('HGET', KEYS[1], 'shown_at') or '0')
if at > 0 and now < at + tonumber(ARGV[3]) then
  local due = at + tonumber(ARGV[3])
  redis.call('HSET', KEYS[1], 'count_due', due)
  return {2, due}
end
redis.call('HSET', KEYS[1], 'shown', count, 'shown_at', now)
local done = append_events({ARGV[4]}, ARGV[5], ARGV[6])
return {1, done[2]}
