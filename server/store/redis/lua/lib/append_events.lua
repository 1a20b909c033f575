-- Appends events without a version check (chat, spectator counts): used by append.lua and
-- announce.lua. KEYS[1] state hash, KEYS[2] event stream; `events` a list; returns first, last.
local function append_events(events, maxlen, bell)
  local seq = tonumber(redis.call('HGET', KEYS[1], 'seq') or '0')
  local first = seq + 1
  for i = 1, #events do
    seq = seq + 1
    redis.call('XADD', KEYS[2], 'MAXLEN', '=', maxlen, seq .. '-0', 'd', events[i])
  end
  redis.call('HSET', KEYS[1], 'seq', seq)
  local ttl = redis.call('PTTL', KEYS[1])
  if ttl > 0 then
    redis.call('PEXPIRE', KEYS[2], ttl)
  end
  -- The bell carries the events, no state (codecs.bell reads it).
  local lengths = {}
  for i = 1, #events do
    lengths[i] = #events[i]
  end
  redis.call('PUBLISH', bell, seq .. ':' .. (redis.call('HGET', KEYS[1], 'version') or '0') .. ':'
             .. first .. ':-1:' .. table.concat(lengths, ',') .. '\n' .. table.concat(events))
  return {first, seq}
end
