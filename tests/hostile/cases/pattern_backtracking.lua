-- Class: patterns. Catastrophic backtracking: 40 'a*' before a 'b' that
-- never comes, all inside one C call the count hook never interrupts.
-- Redis 7.0.15: busy for good (not even SCRIPT KILL stops it).
-- expect: stop budget of 100000000 steps
return string.find(string.rep('a', 40), string.rep('a*', 40) .. 'b')
