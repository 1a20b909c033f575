-- KEYS: deadline index, parked rooms. ARGV: room, score seen, action, new score.
-- On the index: "claim" leases the room if still due; "move" re-files it, "drop"
-- removes it (its room is gone) and "park" moves it to the parked rooms (it has no
-- deadline), each only if nobody touched the entry since we looked.
-- On the parked rooms, under the same condition: "forget" removes the room, "unpark"
-- files it in the index again (only ever earlier: LT) at the new score.
if ARGV[3] == 'forget' or ARGV[3] == 'unpark' then
  local parked = redis.call('ZSCORE', KEYS[2], ARGV[1])
  if not parked or tonumber(parked) ~= tonumber(ARGV[2]) then
    return 0
  end
  redis.call('ZREM', KEYS[2], ARGV[1])
  if ARGV[3] == 'unpark' then
    redis.call('ZADD', KEYS[1], 'LT', ARGV[4], ARGV[1])
  end
  return 0
end
local current = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not current then
  return 0
end
current = tonumber(current)
if ARGV[3] == 'claim' then
  if current <= tonumber(ARGV[2]) then
    redis.call('ZADD', KEYS[1], ARGV[4], ARGV[1])
    return 1
  end
  return 0
end
if current ~= tonumber(ARGV[2]) then
  return 0
end
if ARGV[3] == 'drop' then
  redis.call('ZREM', KEYS[1], ARGV[1])
elseif ARGV[3] == 'park' then
  redis.call('ZREM', KEYS[1], ARGV[1])
  redis.call('ZADD', KEYS[2], ARGV[4], ARGV[1])
else
  redis.call('ZADD', KEYS[1], ARGV[4], ARGV[1])
end
return 0
