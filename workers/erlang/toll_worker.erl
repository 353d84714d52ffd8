%% toll's Erlang worker: the control plane of spec/wire.md on stdin/stdout,
%% serving transfers over inherited pipes (an fd port), unix sockets and
%% loopback TCP, spawning and ringing Erlang processes, and calling into C
%% through a NIF (`ffi`, toll_ffi.erl). OTP only.
%%
%% Run: erl -noshell -pa DIR -s toll_worker main
-module(toll_worker).
-export([main/0]).
%% For the worker's own test.
-export([serve/3, decode_header/1, encode_reply/4, parse_fault/1, json_decode/1,
         json_encode/1, spawn_units/1, ring/2]).

-define(DATA, 1).
-define(END, 2).
-define(OK, 0).
-define(BAD, 1).

main() ->
    ok = io:setopts(standard_io, [binary]),
    %% stdout is the control plane: the emulator's reports ("Too many
    %% processes" at the process limit) go to stderr.
    ok = logger:remove_handler(default),
    ok = logger:add_handler(default, logger_std_h, #{config => #{type => standard_error}}),
    Fault = parse_fault(os:getenv("TOLL_WORKER_FAULT", "")),
    control(Fault),
    halt(0).

%% ---- control plane ----

control(Fault) ->
    case io:get_line(standard_io, "") of
        eof -> ok;
        {error, _} -> ok;
        Line ->
            case string:trim(Line) of
                <<>> -> control(Fault);
                Text ->
                    case command(Text, Fault) of
                        stop -> ok;
                        _ -> control(Fault)
                    end
            end
    end.

command(Text, Fault) ->
    case catch json_decode(Text) of
        Cmd when is_map(Cmd) -> op(maps:get(<<"op">>, Cmd, undefined), Cmd, Fault);
        _ -> answer(refuse(<<"not JSON">>))
    end.

op(<<"hello">>, _, _) ->
    Version = iolist_to_binary(["OTP ", erlang:system_info(otp_release), " erts ",
                                erlang:system_info(version)]),
    answer([{ok, true}, {runtime, <<"erlang">>}, {version, Version}, {wire, 1},
            {pid, list_to_integer(os:getpid())},
            {ops, [<<"transfer">>, <<"spawn">>, <<"ring">>, <<"ffi">>]},
            {transports, [<<"pipe">>, <<"unix">>, <<"tcp">>]}, {units, [<<"process">>]},
            {bindings, toll_ffi:bindings()}]);
op(<<"transfer">>, Cmd, Fault) -> answer(transfer(Cmd, Fault));
op(<<"spawn">>, Cmd, Fault) -> answer(units(spawn, Cmd, Fault));
op(<<"ring">>, Cmd, Fault) -> answer(units(ring, Cmd, Fault));
op(<<"ffi">>, Cmd, _) -> answer(toll_ffi:run(Cmd));
op(<<"exit">>, _, _) -> stop;
op(Other, _, _) -> answer(refuse(iolist_to_binary(["unknown op `", text(Other), "`"]))).

text(B) when is_binary(B) -> B;
text(Other) -> io_lib:format("~p", [Other]).

answer(Pairs) -> io:put_chars(standard_io, [json_encode(Pairs), $\n]).

refuse(Msg) ->
    io:put_chars(standard_error, ["toll-worker-erlang: ", Msg, $\n]),
    [{ok, false}, {error, Msg}].

%% ---- transfer ----

transfer(Cmd, Fault) ->
    case connect(maps:get(<<"transport">>, Cmd, undefined), Cmd) of
        {ok, Recv, Send, Close} ->
            answer([{ok, true}, {event, <<"ready">>}]),
            Result = serve(Recv, Send, Fault),
            Close(),
            case Result of
                {ok, Frames, Items} ->
                    [{ok, true}, {event, <<"done">>}, {frames, Frames}, {items, Items}];
                {error, Why} ->
                    refuse(iolist_to_binary(io_lib:format("data channel: ~p", [Why])))
            end;
        {error, Msg} -> refuse(Msg)
    end.

connect(<<"pipe">>, Cmd) ->
    case {maps:get(<<"read_fd">>, Cmd, undefined), maps:get(<<"write_fd">>, Cmd, undefined)} of
        {R, W} when is_integer(R), is_integer(W) ->
            Port = pipe_port(R, W),
            Recv = fun() -> receive {Port, {data, D}} -> {ok, D}; {Port, eof} -> eof end end,
            Send = fun(B) -> true = port_command(Port, B), ok end,
            {ok, Recv, Send, fun() -> ok end};
        _ -> {error, <<"transfer command lacks `read_fd` or `write_fd`">>}
    end;
connect(<<"unix">>, Cmd) ->
    Path = binary_to_list(maps:get(<<"path">>, Cmd, <<>>)),
    socket_channel(gen_tcp:connect({local, Path}, 0, [local, binary, {active, false}, {packet, raw}]));
connect(<<"tcp">>, Cmd) ->
    Host = binary_to_list(maps:get(<<"host">>, Cmd, <<"127.0.0.1">>)),
    Port = maps:get(<<"port">>, Cmd, 0),
    socket_channel(gen_tcp:connect(Host, Port, [binary, {active, false}, {packet, raw},
                                                {nodelay, true}]));
connect(Other, _) ->
    {error, iolist_to_binary(["unsupported transport `", text(Other), "`: this worker speaks pipe, unix, tcp"])}.

%% The inherited pipes, opened once and kept for every pipe transfer.
pipe_port(R, W) ->
    case get({pipe, R, W}) of
        undefined ->
            Port = open_port({fd, R, W}, [binary, stream, eof]),
            put({pipe, R, W}, Port),
            Port;
        Port -> Port
    end.

socket_channel({ok, S}) ->
    Recv = fun() -> case gen_tcp:recv(S, 0) of
                        {ok, D} -> {ok, D};
                        {error, closed} -> eof;
                        {error, E} -> {error, E}
                    end end,
    {ok, Recv, fun(B) -> gen_tcp:send(S, B) end, fun() -> gen_tcp:close(S) end};
socket_channel({error, E}) ->
    {error, iolist_to_binary(io_lib:format("cannot connect: ~p", [E]))}.

%% ---- data plane ----

%% Serve request frames until END or a bad frame: Recv() gives {ok, Bin} | eof,
%% Send(Bin) writes one reply.
serve(Recv, Send, Fault) -> frames(<<>>, Recv, Send, Fault, 0, 0, 0).

frames(<<"TOLL", Kind:32/little, Seq:32/little, Count:32/little, Rest/binary>>,
       Recv, Send, Fault, Expected, Frames, Items) ->
    if
        (Kind =/= ?DATA andalso Kind =/= ?END) orelse Seq =/= Expected ->
            Send(encode_reply(?BAD, Seq, 0, 0)),
            {ok, Frames, Items};
        Kind =:= ?END ->
            Send(encode_reply(?OK, Seq, 0, 0)),
            {ok, Frames, Items};
        true ->
            case Fault of
                {exit, K} when Count >= K -> halt(3);
                _ -> ok
            end,
            case items(Count * 4, Rest, Recv, 0) of
                {ok, Sum, After} ->
                    Reply = case Fault of
                                {garbage, G} when Count >= G -> binary:copy(<<16#AB>>, 24);
                                _ -> encode_reply(?OK, Seq, Count, Sum)
                            end,
                    Send(Reply),
                    frames(After, Recv, Send, Fault, (Expected + 1) band 16#FFFFFFFF,
                           Frames + 1, Items + Count);
                Error -> Error
            end
    end;
frames(<<Magic:4/binary, _:12/binary, _/binary>> = Buf, _, Send, _, _, Frames, Items)
  when Magic =/= <<"TOLL">> ->
    <<_:8/binary, Seq:32/little, _/binary>> = Buf,
    Send(encode_reply(?BAD, Seq, 0, 0)),
    {ok, Frames, Items};
frames(Buf, Recv, Send, Fault, Expected, Frames, Items) ->
    case Recv() of
        {ok, More} -> frames(<<Buf/binary, More/binary>>, Recv, Send, Fault, Expected, Frames, Items);
        eof -> {error, closed_before_end};
        {error, E} -> {error, E}
    end.

%% Sum Left bytes of int32 items, reading more as needed.
items(0, Buf, _, Sum) -> {ok, Sum, Buf};
items(Left, Buf, Recv, Sum) when byte_size(Buf) >= 4 ->
    Take = min(Left, byte_size(Buf) band (bnot 3)),
    <<Chunk:Take/binary, Rest/binary>> = Buf,
    items(Left - Take, Rest, Recv, sum(Chunk, Sum));
items(Left, Buf, Recv, Sum) ->
    case Recv() of
        {ok, More} -> items(Left, <<Buf/binary, More/binary>>, Recv, Sum);
        eof -> {error, closed_before_end};
        {error, E} -> {error, E}
    end.

sum(<<X:32/little-signed, Rest/binary>>, Acc) -> sum(Rest, Acc + X);
sum(<<>>, Acc) -> Acc.

decode_header(<<Magic:4/binary, Kind:32/little, Seq:32/little, Count:32/little>>) ->
    {Magic =:= <<"TOLL">>, Kind, Seq, Count}.

encode_reply(Status, Seq, Count, Sum) ->
    <<"TOLR", Status:32/little, Seq:32/little, Count:32/little, Sum:64/little-signed>>.

%% TOLL_WORKER_FAULT: exit:K or garbage:K; anything else is no fault.
parse_fault(Text) ->
    case string:split(Text, ":") of
        [Kind, K] when Kind =:= "exit"; Kind =:= "garbage" ->
            case string:to_integer(K) of
                {N, []} when N >= 0 -> {list_to_atom(Kind), N};
                _ -> none
            end;
        _ -> none
    end.

%% ---- spawn and ring ----

units(Op, Cmd, Fault) ->
    N = maps:get(<<"n">>, Cmd, undefined),
    case Fault of
        {exit, K} when is_integer(N), N >= K -> halt(3);
        _ -> ok
    end,
    M = maps:get(<<"m">>, Cmd, undefined),
    case {maps:get(<<"unit">>, Cmd, undefined), Op} of
        {<<"process">>, spawn} when is_integer(N), N >= 1 ->
            case spawn_units(N) of
                {ok, Ns, MemKb, Made} ->
                    [{ok, true}, {event, <<"done">>}, {unit, <<"process">>}, {n, N}, {made, Made},
                     {ns, Ns}, {mem_kb, MemKb}, {mem_how, <<"erlang-process-info">>}];
                {limit, Made} -> limit(Made, N)
            end;
        {<<"process">>, spawn} -> refuse(<<"spawn needs n of at least 1">>);
        {<<"process">>, ring} when is_integer(N), N >= 2, is_integer(M), M >= 1 ->
            case ring(N, M) of
                {ok, Ns, Hops} ->
                    [{ok, true}, {event, <<"done">>}, {unit, <<"process">>}, {n, N}, {m, M},
                     {hops, Hops}, {ns, Ns}];
                {limit, Made} -> limit(Made, N)
            end;
        {<<"process">>, ring} -> refuse(<<"a ring needs n of at least 2 and m of at least 1">>);
        {Other, _} ->
            refuse(iolist_to_binary(["unknown unit `", text(Other), "`: the erlang worker has process"]))
    end.

limit(Made, N) ->
    Msg = io_lib:format("created ~b of ~b units: system_limit (Erlang's process limit is ~b; erl +P raises it)",
                        [Made, N, erlang:system_info(process_limit)]),
    [{ok, false}, {limit, true}, {created, Made}, {error, iolist_to_binary(Msg)}].

now_ns() -> erlang:monotonic_time(nanosecond).

%% N processes that each say `ready` and wait for `go`; Made counts the
%% `ready` messages.
spawn_units(N) ->
    Self = self(),
    T0 = now_ns(),
    case make(N, fun() -> Self ! ready, receive go -> ok end end, []) of
        {ok, Pids} ->
            Made = await_ready(N),
            T1 = now_ns(),
            MemKb = memory_kb(Pids),
            release(Pids),
            {ok, T1 - T0, MemKb, Made};
        {limit, Pids} ->
            await_ready(length(Pids)),
            release(Pids),
            {limit, length(Pids)}
    end.

make(0, _, Acc) -> {ok, Acc};
make(K, Fun, Acc) ->
    try spawn(Fun) of
        Pid -> make(K - 1, Fun, [Pid | Acc])
    catch
        error:system_limit -> {limit, Acc}
    end.

%% Wait for N `ready` messages; returns how many came.
await_ready(N) -> await_ready(N, 0).

await_ready(N, N) -> N;
await_ready(N, Got) -> receive ready -> await_ready(N, Got + 1) end.

%% Send `go` to each, then wait until every one has ended.
release(Pids) ->
    [P ! go || P <- Pids],
    await_ended(Pids).

await_ended(Pids) ->
    Refs = [erlang:monitor(process, P) || P <- Pids],
    [receive {'DOWN', R, process, _, _} -> ok end || R <- Refs],
    ok.

%% N processes in a ring; the token goes round M times.
ring(N, M) ->
    Self = self(),
    Last = N * M,
    Unit = fun() -> receive {next, Next} -> hop(Next, M, Last, Self) end end,
    case make(N, Unit, []) of
        {ok, Pids} ->
            [First | _] = Pids,
            link_ring(Pids, First),
            T0 = now_ns(),
            First ! 0,
            Hops = receive {done, H} -> H end,
            T1 = now_ns(),
            await_ended(Pids),
            {ok, T1 - T0, Hops};
        {limit, Pids} ->
            [exit(P, kill) || P <- Pids],
            await_ended(Pids),
            {limit, length(Pids)}
    end.

%% Tell each unit who comes next; the last one's next is the first.
link_ring([P], First) -> P ! {next, First};
link_ring([P, Q | Rest], First) -> P ! {next, Q}, link_ring([Q | Rest], First).

hop(_, 0, _, _) -> ok;
hop(Next, K, Last, Parent) ->
    receive
        V when is_integer(V) ->
            case V + 1 of
                Last -> Parent ! {done, Last};
                V1 -> Next ! V1, hop(Next, K - 1, Last, Parent)
            end
    end.

%% The memory the processes hold, in kB, as the emulator counts it for each
%% (heap, stack, mailbox, process structure). Not the growth of the resident
%% set, nor of erlang:memory(processes): the emulator keeps the carriers that
%% earlier processes freed and puts new ones there, and frees the structures
%% of ended processes only later, while the next ones are being made.
memory_kb(Pids) ->
    lists:sum([Bytes || P <- Pids, {memory, Bytes} <- [erlang:process_info(P, memory)]]) div 1024.

%% ---- JSON, just enough for the protocol's flat objects ----

json_decode(Bin) ->
    {Map, _} = object(ws(Bin)),
    Map.

object(<<"{", Rest/binary>>) -> members(ws(Rest), #{}).

members(<<"}", Rest/binary>>, Acc) -> {Acc, Rest};
members(<<",", Rest/binary>>, Acc) -> members(ws(Rest), Acc);
members(<<"\"", _/binary>> = Bin, Acc) ->
    {Key, R1} = string_(Bin),
    <<":", R2/binary>> = ws(R1),
    {Value, R3} = value(ws(R2)),
    members(ws(R3), Acc#{Key => Value}).

value(<<"\"", _/binary>> = Bin) -> string_(Bin);
value(<<"true", R/binary>>) -> {true, R};
value(<<"false", R/binary>>) -> {false, R};
value(<<"null", R/binary>>) -> {null, R};
value(<<"[", R/binary>>) -> array(ws(R), []);
value(<<"{", _/binary>> = Bin) -> object(Bin);
value(Bin) -> number(Bin, <<>>).

array(<<"]", R/binary>>, Acc) -> {lists:reverse(Acc), R};
array(<<",", R/binary>>, Acc) -> array(ws(R), Acc);
array(Bin, Acc) -> {V, R} = value(Bin), array(ws(R), [V | Acc]).

number(<<C, R/binary>>, Acc) when C =:= $-; C >= $0, C =< $9; C =:= $.; C =:= $e; C =:= $E; C =:= $+ ->
    number(R, <<Acc/binary, C>>);
number(R, Acc) ->
    V = try binary_to_integer(Acc) catch error:badarg -> binary_to_float(Acc) end,
    {V, R}.

string_(<<"\"", R/binary>>) -> chars(R, <<>>).

chars(<<"\\\"", R/binary>>, Acc) -> chars(R, <<Acc/binary, "\"">>);
chars(<<"\\\\", R/binary>>, Acc) -> chars(R, <<Acc/binary, "\\">>);
chars(<<"\\/", R/binary>>, Acc) -> chars(R, <<Acc/binary, "/">>);
chars(<<"\\n", R/binary>>, Acc) -> chars(R, <<Acc/binary, "\n">>);
chars(<<"\"", R/binary>>, Acc) -> {Acc, R};
chars(<<C, R/binary>>, Acc) -> chars(R, <<Acc/binary, C>>).

ws(<<C, R/binary>>) when C =:= $\s; C =:= $\t; C =:= $\n; C =:= $\r -> ws(R);
ws(Bin) -> Bin.

json_encode(Pairs) ->
    ["{", lists:join(",", [[enc(atom_to_binary(K)), ":", enc(V)] || {K, V} <- Pairs]), "}"].

enc(true) -> "true";
enc(false) -> "false";
enc(V) when is_integer(V) -> integer_to_list(V);
enc(V) when is_binary(V) -> [$", escape(V), $"];
enc(V) when is_list(V) -> ["[", lists:join(",", [enc(X) || X <- V]), "]"].

escape(Bin) -> [esc(C) || <<C>> <= Bin].

esc($") -> "\\\"";
esc($\\) -> "\\\\";
esc($\n) -> "\\n";
esc(C) when C < 32 -> io_lib:format("\\u~4.16.0b", [C]);
esc(C) -> C.
