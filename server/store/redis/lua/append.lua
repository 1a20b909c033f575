-- Runs after lib/append_events.lua, which defines append_events().
-- KEYS: state hash, event stream, chat list. ARGV: max events, bell channel, chat lines
-- kept (0: the events are not chat), events... Returns {first, last}, {-1, 0} for no room.
-- Chat lines also go to the chat list as "<seq>:<event>", which keeps the last ARGV[3].
if redis.call('EXISTS', KEYS[1]) == 0 then
  return {-1, 0}
end
local events = {}
for i = 4, #ARGV do
  events[#events + 1] = ARGV[i]
end
local done = append_events(events, ARGV[1], ARGV[2])
local kept = tonumber(ARGV[3])
if kept > 0 and #events > 0 then
  for i = 1, #events do
    redis.call('RPUSH', KEYS[3], (done[1] + i - 1) .. ':' .. events[i])
  end
  redis.call('LTRIM', KEYS[3], -kept, -1)
  local ttl = redis.call('PTTL', KEYS[1])
  if ttl > 0 then
    redis.call('PEXPIRE', KEYS[3], ttl)
  end
end
return done
