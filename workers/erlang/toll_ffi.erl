%% `ffi` (spec/wire.md) for toll's Erlang worker: reps calls into
%% workers/ffi/toll_ffi.c through a NIF, toll_ffi_nif.so, which toll builds
%% from workers/ffi/toll_ffi_nif.c and leaves in $TOLL_FFI_DIR: binding nif on
%% a normal scheduler (sum/1), nif-dirty on a dirty CPU scheduler
%% (sum_dirty/1, where the runtime has them). The ways: "pinned", a binary
%% read in place; "copied" (nif only), a list of bytes the NIF flattens into
%% a new binary each call (sum_list/1, receipt_list/1). touch "receipt" calls
%% receipt/1 (receipt_dirty/1). "callback" (nif only): a NIF cannot call
%% Erlang, so send_self(N) sends this process N messages from C (enif_send)
%% and the process receives and counts them: the nearest thing to a callback.
%% The NIF's functions are stubbed below; the Erlang bodies only stand in
%% until it loads.
-module(toll_ffi).
-export([bindings/0, run/1, pattern/2, null/0, sum/1, sum_dirty/1, receipt/1, receipt_dirty/1,
         sum_list/1, receipt_list/1, send_self/1]).

null() -> erlang:nif_error(not_loaded).
sum(_) -> erlang:nif_error(not_loaded).
sum_dirty(_) -> erlang:nif_error(not_loaded).
receipt(_) -> erlang:nif_error(not_loaded).
receipt_dirty(_) -> erlang:nif_error(not_loaded).
sum_list(_) -> erlang:nif_error(not_loaded).
receipt_list(_) -> erlang:nif_error(not_loaded).
send_self(_) -> erlang:nif_error(not_loaded).

%% Loads the NIF (once: OTP refuses a second load, which means it is there).
load() ->
    case os:getenv("TOLL_FFI_DIR") of
        false -> {error, <<"TOLL_FFI_DIR is not set: toll sets it to where it built toll_ffi_nif.so">>};
        Dir ->
            case erlang:load_nif(filename:join(Dir, "toll_ffi_nif"), 0) of
                ok -> ok;
                {error, {reload, _}} -> ok;
                {error, {upgrade, _}} -> ok;
                {error, {_, Text}} -> {error, unicode:characters_to_binary(Text)}
            end
    end.

%% The bindings this worker can call now.
bindings() ->
    case os:getenv("TOLL_FFI_DIR") =/= false andalso load() =:= ok of
        true -> [<<"nif">> | [<<"nif-dirty">> || dirty()]];
        false -> []
    end.

%% Whether this runtime has dirty CPU schedulers (an emulator built without
%% them answers 0 or fails the question).
dirty() ->
    try erlang:system_info(dirty_cpu_schedulers) > 0
    catch _:_ -> false
    end.

%% Byte i = (seed + 131·i) mod 256 (spec/wire.md): the 256-byte period, repeated.
pattern(N, Seed) ->
    Period = << <<((Seed + 131 * I) band 255)>> || I <- lists:seq(0, 255) >>,
    binary:part(binary:copy(Period, N div 256 + 1), 0, N).

run(Cmd) ->
    [N, Reps, Seed] = [maps:get(K, Cmd, undefined) || K <- [<<"n">>, <<"reps">>, <<"seed">>]],
    Binding = maps:get(<<"binding">>, Cmd, undefined),
    Way = {maps:get(<<"pass">>, Cmd, <<"pinned">>), maps:get(<<"touch">>, Cmd, <<"all">>)},
    Whole = lists:all(fun(V) -> is_integer(V) andalso V >= 0 end, [N, Reps, Seed]),
    if
        not Whole; Reps < 1 -> refuse(<<"`ffi` needs whole numbers n, reps (at least 1) and seed">>);
        Binding =/= <<"nif">>, Binding =/= <<"nif-dirty">> ->
            refuse(iolist_to_binary(["no binding ", name(Binding), ": the erlang worker has nif, nif-dirty"]));
        Binding =:= <<"nif-dirty">> ->
            case dirty() of
                false -> refuse(<<"nif-dirty: this runtime has no dirty CPU schedulers">>);
                true -> loaded(Binding, Way, N, Reps, Seed)
            end;
        true -> loaded(Binding, Way, N, Reps, Seed)
    end.

loaded(Binding, Way, N, Reps, Seed) ->
    case {load(), fn(Binding, Way)} of
        {{error, Why}, _} -> refuse(<<Binding/binary, ": ", Why/binary>>);
        {ok, none} ->
            {Pass, Touch} = Way,
            refuse(iolist_to_binary([Binding, " passes pinned", [" or copied, or sends itself messages" || Binding =:= <<"nif">>],
                                     " and touches all or receipt, not ", name(Pass), " and ", name(Touch)]));
        {ok, callback} -> messages(Binding, N, Reps);
        {ok, {Key, Value, F}} -> calls(Binding, Key, F, Value(pattern(N, Seed)), N, Reps)
    end.

%% Reps calls of send_self(N), each followed by receiving what it sent:
%% the count is what arrived by then (a message missing leaves it short).
messages(Binding, N, Reps) ->
    T0 = erlang:monotonic_time(nanosecond),
    Count = sends(Reps, N, 0),
    Ns = erlang:monotonic_time(nanosecond) - T0,
    [{ok, true}, {event, <<"done">>}, {binding, Binding}, {n, N}, {reps, Reps}, {ns, Ns}, {count, Count}].

sends(0, _, Count) -> Count;
sends(R, N, _) ->
    ok = send_self(N),
    sends(R - 1, N, received(0)).

received(K) ->
    receive upcall -> received(K + 1)
    after 0 -> K
    end.

%% The answer's key, the value made once from the pattern, and the NIF to call.
fn(<<"nif">>, {<<"pinned">>, <<"all">>}) -> {sum, fun id/1, fun sum/1};
fn(<<"nif">>, {<<"pinned">>, <<"receipt">>}) -> {receipt, fun id/1, fun receipt/1};
fn(<<"nif">>, {<<"copied">>, <<"all">>}) -> {sum, fun binary_to_list/1, fun sum_list/1};
fn(<<"nif">>, {<<"copied">>, <<"receipt">>}) -> {receipt, fun binary_to_list/1, fun receipt_list/1};
fn(<<"nif">>, {<<"callback">>, _}) -> callback;
fn(<<"nif-dirty">>, {<<"pinned">>, <<"all">>}) -> {sum, fun id/1, fun sum_dirty/1};
fn(<<"nif-dirty">>, {<<"pinned">>, <<"receipt">>}) -> {receipt, fun id/1, fun receipt_dirty/1};
fn(_, _) -> none.

id(X) -> X.

calls(Binding, Key, F, Value, N, Reps) ->
    T0 = erlang:monotonic_time(nanosecond),
    %% One call shape at every n, 0 included (no bytes).
    Last = loop(Reps, F, Value, 0),
    Ns = erlang:monotonic_time(nanosecond) - T0,
    [{ok, true}, {event, <<"done">>}, {binding, Binding}, {n, N}, {reps, Reps}, {ns, Ns}, {Key, Last}].

%% The loop does nothing but call.
loop(0, _, _, Last) -> Last;
loop(R, F, Value, _) -> loop(R - 1, F, Value, F(Value)).

name(B) when is_binary(B) -> B;
name(Other) -> io_lib:format("~p", [Other]).

refuse(Msg) -> [{ok, false}, {error, Msg}].
