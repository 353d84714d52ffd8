%% The Erlang worker's own test: spec/vectors, then the worker end to end.
%% Run from the repository root:
%%   erlc -o DIR workers/erlang/*.erl && erl -noshell -pa DIR -s toll_worker_tests run
-module(toll_worker_tests).
-export([run/0]).

run() ->
    %% Run from the repository root, or say where the vectors are.
    Vectors = os:getenv("TOLL_VECTORS", "spec/vectors"),
    Tests = [{frames, fun() -> frames(Vectors) end},
             {sessions, fun() -> sessions(Vectors) end},
             {faults, fun faults/0},
             {json, fun json/0},
             {spawn_and_ring, fun spawn_and_ring/0},
             {end_to_end, fun end_to_end/0},
             {exit_fault, fun exit_fault/0},
             {process_limit, fun process_limit/0},
             {ffi_nif, fun() -> ffi(Vectors) end}],
    Results = [try F() of _ -> ok catch C:E:St -> io:format("FAIL ~p: ~p:~p~n  ~p~n", [N, C, E, St]), fail end
               || {N, F} <- Tests],
    Failed = length([x || fail <- Results]),
    io:format("erlang worker: ~b passed, ~b failed~n", [length(Results) - Failed, Failed]),
    halt(case Failed of 0 -> 0; _ -> 1 end).

rows(Dir, Name) ->
    {ok, B} = file:read_file(filename:join(Dir, Name)),
    [binary:split(L, <<"\t">>, [global])
     || L <- binary:split(B, <<"\n">>, [global]), L =/= <<>>, binary:first(L) =/= $#].

unhex(H) -> binary:decode_hex(H).

frames(Dir) ->
    Rows = rows(Dir, "frames.tsv"),
    true = length(Rows) >= 10,
    lists:foreach(
      fun([Name, Type, Kind, Status, Seq, Count, Sum, Items, Hex]) ->
              B = unhex(Hex),
              case Type of
                  <<"request">> ->
                      <<H:16/binary, Rest/binary>> = B,
                      WantKind = case Kind of <<"data">> -> 1; <<"end">> -> 2 end,
                      {{true, WantKind, S, C}, Name} =
                          {toll_worker:decode_header(H), Name},
                      S = binary_to_integer(Seq),
                      C = binary_to_integer(Count),
                      Got = [integer_to_binary(X) || <<X:32/little-signed>> <= Rest],
                      Want = case Items of <<"-">> -> []; _ -> binary:split(Items, <<",">>, [global]) end,
                      {Want, Name} = {Got, Name};
                  <<"reply">> ->
                      St = case Status of <<"ok">> -> 0; <<"bad_frame">> -> 1 end,
                      Enc = toll_worker:encode_reply(St, binary_to_integer(Seq),
                                                     binary_to_integer(Count), binary_to_integer(Sum)),
                      {B, Name} = {Enc, Name}
              end
      end, Rows).

%% Feed Input in chunks of N bytes; collect what the worker writes.
serve_chunks(Input, N) ->
    put(input, Input),
    put(output, []),
    Recv = fun() -> case get(input) of
                        <<>> -> eof;
                        In -> Take = min(N, byte_size(In)),
                              <<C:Take/binary, R/binary>> = In,
                              put(input, R), {ok, C}
                    end end,
    Send = fun(B) -> put(output, [get(output), B]), ok end,
    toll_worker:serve(Recv, Send, none),
    iolist_to_binary(get(output)).

sessions(Dir) ->
    Rows = rows(Dir, "sessions.tsv"),
    true = length(Rows) >= 3,
    [{Name, N, Want} = {Name, N, serve_chunks(unhex(In), N)}
     || [Name, In, Out] <- Rows, Want <- [unhex(Out)], N <- [1, 7, 1 bsl 20]],
    ok.

faults() ->
    {exit, 7} = toll_worker:parse_fault("exit:7"),
    {garbage, 0} = toll_worker:parse_fault("garbage:0"),
    [none = toll_worker:parse_fault(S) || S <- ["", "exit", "exit:x", "boom:3"]],
    ok.

json() ->
    #{<<"op">> := <<"ring">>, <<"n">> := 7, <<"ok">> := true, <<"path">> := <<"/a \"b\"">>} =
        toll_worker:json_decode(<<" {\"op\": \"ring\", \"n\":7,\"ok\":true, \"path\":\"/a \\\"b\\\"\"}">>),
    <<"{\"a\":1,\"b\":\"x\\\"\",\"c\":[\"p\"],\"d\":false}">> =
        iolist_to_binary(toll_worker:json_encode([{a, 1}, {b, <<"x\"">>}, {c, [<<"p">>]}, {d, false}])),
    ok.

spawn_and_ring() ->
    {ok, Ns, Mem, 500} = toll_worker:spawn_units(500),
    true = Ns > 0 andalso is_integer(Mem),
    %% Every trial counts the processes' memory (a process's heap alone is
    %% 233 words), not only the first: the emulator reuses what they freed.
    lists:foreach(fun(_) ->
                          {ok, _, Kb, 5000} = toll_worker:spawn_units(5000),
                          true = Kb >= 5000 * 233 * 8 div 1024
                  end, [1, 2, 3]),
    {ok, RingNs, 91} = toll_worker:ring(7, 13),
    true = RingNs > 0,
    ok.

%% ---- the worker as a child process, driven as toll drives it ----

start(Env) -> start(Env, []).

start(Env, Flags) ->
    Erl = os:find_executable("erl"),
    Dir = filename:dirname(code:which(toll_worker)),
    open_port({spawn_executable, Erl},
              [{args, Flags ++ ["-noshell", "-pa", Dir, "-s", "toll_worker", "main"]}, {env, Env},
               binary, {line, 65536}, exit_status, use_stdio]).

ask(Port, Line) ->
    port_command(Port, [Line, $\n]),
    recv_line(Port).

recv_line(Port) ->
    receive
        {Port, {data, {eol, L}}} -> toll_worker:json_decode(L);
        {Port, {exit_status, S}} -> {exited, S}
    after 20000 -> timeout
    end.

frame(Kind, Seq, N) ->
    Items = << <<123:32/little>> || _ <- lists:seq(1, N) >>,
    <<"TOLL", Kind:32/little, Seq:32/little, N:32/little, Items/binary>>.

end_to_end() ->
    P = start([]),
    #{<<"runtime">> := <<"erlang">>, <<"wire">> := 1, <<"units">> := [<<"process">>]} =
        ask(P, "{\"op\":\"hello\"}"),
    Path = "/tmp/toll-erlang-test-" ++ os:getpid() ++ ".sock",
    file:delete(Path),
    {ok, L} = gen_tcp:listen(0, [{ifaddr, {local, Path}}, binary, {active, false}, {packet, raw}]),
    port_command(P, ["{\"op\":\"transfer\",\"transport\":\"unix\",\"path\":\"", Path, "\"}\n"]),
    {ok, S} = gen_tcp:accept(L, 10000),
    #{<<"event">> := <<"ready">>} = recv_line(P),
    lists:foreach(
      fun({Seq, N}) ->
              ok = gen_tcp:send(S, frame(1, Seq, N)),
              {ok, R} = gen_tcp:recv(S, 24, 10000),
              R = toll_worker:encode_reply(0, Seq, N, 123 * N)
      end, [{0, 0}, {1, 5}, {2, 1000}]),
    ok = gen_tcp:send(S, frame(2, 3, 0)),
    {ok, _} = gen_tcp:recv(S, 24, 10000),
    #{<<"frames">> := 3, <<"items">> := 1005} = recv_line(P),
    gen_tcp:close(S), gen_tcp:close(L), file:delete(Path),
    #{<<"ok">> := true, <<"n">> := 300, <<"made">> := 300, <<"mem_how">> := <<"erlang-process-info">>} =
        ask(P, "{\"op\":\"spawn\",\"unit\":\"process\",\"n\":300}"),
    #{<<"ok">> := true, <<"hops">> := 91} = ask(P, "{\"op\":\"ring\",\"unit\":\"process\",\"n\":7,\"m\":13}"),
    [#{<<"ok">> := false} = ask(P, Bad)
     || Bad <- ["{\"op\":\"spawn\",\"unit\":\"fiber\",\"n\":5}",
                "{\"op\":\"ring\",\"unit\":\"process\",\"n\":1,\"m\":5}",
                "{\"op\":\"transfer\",\"transport\":\"shm\",\"path\":\"/x\"}",
                "{\"op\":\"nonsense\"}"]],
    port_command(P, "{\"op\":\"exit\"}\n"),
    {exited, 0} = recv_line(P),
    ok.

exit_fault() ->
    P = start([{"TOLL_WORKER_FAULT", "exit:100"}]),
    #{<<"ok">> := true} = ask(P, "{\"op\":\"spawn\",\"unit\":\"process\",\"n\":10}"),
    {exited, 3} = ask(P, "{\"op\":\"spawn\",\"unit\":\"process\",\"n\":100}"),
    ok.

%% At the emulator's process limit (+P, 1024 at least) the worker answers a
%% limit with the count made, and its control plane stays clean: the
%% emulator's "Too many processes" report goes to stderr, not stdout.
process_limit() ->
    P = start([], ["+P", "1024"]),
    #{<<"ok">> := false, <<"limit">> := true, <<"created">> := Made} =
        ask(P, "{\"op\":\"spawn\",\"unit\":\"process\",\"n\":2000}"),
    true = Made > 0 andalso Made < 2000,
    #{<<"ok">> := true, <<"made">> := 10} = ask(P, "{\"op\":\"spawn\",\"unit\":\"process\",\"n\":10}"),
    port_command(P, "{\"op\":\"exit\"}\n"),
    {exited, 0} = recv_line(P),
    ok.

%% The NIF returns spec/vectors/ffi.tsv's sums, and ffi_receipt.tsv's
%% receipts passed every way each binding offers; the messages it sends in
%% place of a callback all arrive. It is built here as toll
%% builds it (cc -O2 -fPIC -shared against the OTP install's erl_nif.h);
%% without erl_nif.h the test says how to get it and checks only the refusal.
ffi(Vectors) ->
    Include = filename:join([code:root_dir(), "usr", "include"]),
    Dir = filename:join(os:getenv("TMPDIR", "/tmp"), "toll-ffi-erlang-" ++ os:getpid()),
    ok = filelib:ensure_dir(filename:join(Dir, "x")),
    Src = "workers/ffi/",
    [<<"no binding jni: the erlang worker has nif, nif-dirty">>] =
        [E || {error, E} <- toll_ffi:run(#{<<"binding">> => <<"jni">>, <<"n">> => 0, <<"reps">> => 1, <<"seed">> => 0})],
    case filelib:is_file(filename:join(Include, "erl_nif.h")) of
        false -> io:format("erlang ffi: 1 skipped (no erl_nif.h: apt-get install erlang-dev)~n");
        true ->
            Cc = os:getenv("CC", "cc"),
            Out = os:cmd(lists:flatten(io_lib:format(
                "~s -O2 -fPIC -shared -Wall -I~s -I~s -o ~s/toll_ffi_nif.so ~stoll_ffi_nif.c ~stoll_ffi.c 2>&1 && echo built",
                [Cc, Include, Src, Dir, Src, Src]))),
            true = lists:suffix("built\n", Out),
            true = os:putenv("TOLL_FFI_DIR", Dir),
            [<<"nif">>, <<"nif-dirty">>] = toll_ffi:bindings(),
            Rows = rows(Vectors, "ffi.tsv"),
            true = length(Rows) >= 8,
            lists:foreach(
              fun({Binding, [Name, N, Seed, Sum]}) ->
                      A = maps:from_list(toll_ffi:run(#{<<"binding">> => Binding, <<"n">> => binary_to_integer(N),
                                                        <<"reps">> => 3, <<"seed">> => binary_to_integer(Seed)})),
                      {Name, Binding, true, true, Binding} =
                          {Name, Binding, maps:get(sum, A) =:= binary_to_integer(Sum), maps:get(ns, A) > 0,
                           maps:get(binding, A)}
              end, [{B, R} || B <- [<<"nif">>, <<"nif-dirty">>], R <- Rows]),
            Receipts = rows(Vectors, "ffi_receipt.tsv"),
            true = length(Receipts) >= 8,
            lists:foreach(
              fun({Binding, Pass, [Name, N, Seed, Bytes, _String]}) ->
                      A = maps:from_list(toll_ffi:run(#{<<"binding">> => Binding, <<"pass">> => Pass,
                                                        <<"touch">> => <<"receipt">>, <<"n">> => binary_to_integer(N),
                                                        <<"reps">> => 3, <<"seed">> => binary_to_integer(Seed)})),
                      {Name, Binding, Pass, true} =
                          {Name, Binding, Pass, maps:get(receipt, A, none) =:= binary_to_integer(Bytes)}
              end, [{B, P, R} || {B, P} <- [{<<"nif">>, <<"pinned">>}, {<<"nif">>, <<"copied">>},
                                            {<<"nif-dirty">>, <<"pinned">>}], R <- Receipts]),
            lists:foreach(
              fun(N) ->
                      A = maps:from_list(toll_ffi:run(#{<<"binding">> => <<"nif">>, <<"pass">> => <<"callback">>,
                                                        <<"n">> => N, <<"reps">> => 3, <<"seed">> => 0})),
                      {callback, N, N} = {callback, N, maps:get(count, A, none)}
              end, [0, 1, 2, 1000]),
            [_] = [E || {error, E} <- toll_ffi:run(#{<<"binding">> => <<"nif">>, <<"pass">> => <<"string">>,
                                                    <<"n">> => 0, <<"reps">> => 1, <<"seed">> => 0})]
    end,
    os:cmd("rm -rf " ++ Dir).
