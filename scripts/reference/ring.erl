%% A plain, hand-written Erlang process ring (E2), outside toll: N processes,
%% one token passed round M times; prints the ns per hop of each trial as JSON.
%% Run: erlc ring.erl && erl -noshell -run ring main N M TRIALS
-module(ring).
-export([main/1]).

main([N, M, Trials]) ->
    {N1, M1, T1} = {list_to_integer(N), list_to_integer(M), list_to_integer(Trials)},
    PerHop = [trial(N1, M1) || _ <- lists:seq(1, T1)],
    io:format("{\"per_hop_ns\":[~s]}~n", [lists:join(",", [float_to_list(P, [{decimals, 2}]) || P <- PerHop])]),
    halt(0).

trial(N, M) ->
    Self = self(),
    Last = N * M,
    Pids = [spawn(fun() -> receive {next, Next} -> loop(Next, M, Last, Self) end end)
            || _ <- lists:seq(1, N)],
    connect(Pids, hd(Pids)),
    T0 = erlang:monotonic_time(nanosecond),
    hd(Pids) ! 0,
    receive {done, Last} -> ok end,
    T1 = erlang:monotonic_time(nanosecond),
    (T1 - T0) / Last.

connect([P], First) -> P ! {next, First};
connect([P, Q | Rest], First) -> P ! {next, Q}, connect([Q | Rest], First).

loop(_, 0, _, _) -> ok;
loop(Next, K, Last, Parent) ->
    receive
        V when V + 1 =:= Last -> Parent ! {done, Last};
        V -> Next ! V + 1, loop(Next, K - 1, Last, Parent)
    end.
