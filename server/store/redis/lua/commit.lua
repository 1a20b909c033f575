-- KEYS: state hash, event stream, followers set (and on a create, the chat list). ARGV:
-- expected version, state, deadline mode ("k"eep / "s"et / "c"lear), deadline, max
-- events, bell channel, commit token, the committing store's follower id ("" if it does
-- not follow the room), events...
local version = tonumber(redis.call('HGET', KEYS[1], 'version') or '0')
if version ~= tonumber(ARGV[1]) then
  if redis.call('HGET', KEYS[1], 'token') == ARGV[7] then
    local done = redis.call('HMGET', KEYS[1], 'version', 'first', 'seq')
    return {tonumber(done[1]), tonumber(done[2]), tonumber(done[3])}
  end
  return {-1, version}
end
if version == 0 then  -- a new room: nothing of an expired one by the same id is left
  redis.call('DEL', KEYS[2])
  if KEYS[4] then
    redis.call('DEL', KEYS[4])
  end
end
local seq = tonumber(redis.call('HGET', KEYS[1], 'seq') or '0')
local first = seq + 1
for i = 9, #ARGV do
  seq = seq + 1
  redis.call('XADD', KEYS[2], 'MAXLEN', '=', ARGV[5], seq .. '-0', 'd', ARGV[i])
end
version = version + 1
redis.call('HSET', KEYS[1], 'version', version, 'seq', seq, 'first', first,
           'state', ARGV[2], 'token', ARGV[7])
if ARGV[3] == 's' then
  redis.call('HSET', KEYS[1], 'deadline', ARGV[4])
elseif ARGV[3] == 'c' then
  redis.call('HDEL', KEYS[1], 'deadline')
end
if seq >= first then
  local ttl = redis.call('PTTL', KEYS[1])
  if ttl > 0 then
    redis.call('PEXPIRE', KEYS[2], ttl)
  end
end
-- The bell carries the new state and the events (codecs.bell reads it): an instance
-- following the room delivers them and answers the room's next load without a read.
-- Rung only if a store other than the committer's follows the room: the committer
-- delivers its own commit from this reply, and a store starts following (registers,
-- then reads the room's seq) after it subscribed, so it misses no bell it needs.
local followers = redis.call('SCARD', KEYS[3])
if followers > 1 or (followers == 1 and redis.call('SISMEMBER', KEYS[3], ARGV[8]) == 0) then
  local lengths = {}
  for i = 9, #ARGV do
    lengths[#lengths + 1] = #ARGV[i]
  end
  redis.call('PUBLISH', ARGV[6], seq .. ':' .. version .. ':' .. first .. ':' .. #ARGV[2]
             .. ':' .. table.concat(lengths, ',') .. '\n' .. ARGV[2]
             .. table.concat(ARGV, '', 9))
end
return {version, first, seq}
