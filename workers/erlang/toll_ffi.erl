%% `ffi` (spec/wire.md) for toll's Erlang worker: reps calls into
%% workers/ffi/toll_ffi.c through a NIF, toll_ffi_nif.so, which toll builds
%% from workers/ffi/toll_ffi_nif.c and leaves in $TOLL_FFI_DIR. null/0 and
%% sum/1 are the NIF's; the Erlang bodies below only stand in until it loads.
-module(toll_ffi).
-export([bindings/0, run/1, pattern/2, null/0, sum/1]).

null() -> erlang:nif_error(not_loaded).
sum(_) -> erlang:nif_error(not_loaded).

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
        true -> [<<"nif">>];
        false -> []
    end.

%% Byte i = (seed + 131·i) mod 256 (spec/wire.md): the 256-byte period, repeated.
pattern(N, Seed) ->
    Period = << <<((Seed + 131 * I) band 255)>> || I <- lists:seq(0, 255) >>,
    binary:part(binary:copy(Period, N div 256 + 1), 0, N).

run(Cmd) ->
    [N, Reps, Seed] = [maps:get(K, Cmd, undefined) || K <- [<<"n">>, <<"reps">>, <<"seed">>]],
    Binding = maps:get(<<"binding">>, Cmd, undefined),
    Whole = lists:all(fun(V) -> is_integer(V) andalso V >= 0 end, [N, Reps, Seed]),
    if
        not Whole; Reps < 1 -> refuse(<<"`ffi` needs whole numbers n, reps (at least 1) and seed">>);
        Binding =/= <<"nif">> ->
            refuse(iolist_to_binary(["no binding ", name(Binding), ": the erlang worker has nif"]));
        true ->
            case load() of
                {error, Why} -> refuse(<<"nif: ", Why/binary>>);
                ok -> calls(N, Reps, Seed)
            end
    end.

calls(N, Reps, Seed) ->
    Buf = pattern(N, Seed),
    T0 = erlang:monotonic_time(nanosecond),
    %% One call shape at every n, 0 included (a sum of no bytes).
    Sum = sum_loop(Reps, Buf, 0),
    Ns = erlang:monotonic_time(nanosecond) - T0,
    [{ok, true}, {event, <<"done">>}, {binding, <<"nif">>}, {n, N}, {reps, Reps}, {ns, Ns}, {sum, Sum}].

%% The loop does nothing but call.
sum_loop(0, _, Last) -> Last;
sum_loop(R, Buf, _) -> sum_loop(R - 1, Buf, sum(Buf)).

name(B) when is_binary(B) -> B;
name(Other) -> io_lib:format("~p", [Other]).

refuse(Msg) -> [{ok, false}, {error, Msg}].
