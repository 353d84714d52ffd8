-- | toll's Haskell worker: the control plane of spec/wire.md on stdin/stdout,
-- serving transfers over inherited pipes, unix sockets and loopback TCP, and
-- spawning and ringing forkIO threads, and calling into C (`ffi`, Ffi.hs).
-- Only the libraries GHC ships.
module Main (main) where

import Control.Exception (IOException, try)
import Data.Version (showVersion)
import Ffi
import Json
import Socket
import System.Environment (lookupEnv)
import System.Exit (ExitCode (..), exitWith)
import System.IO
import System.Info (compilerName, fullCompilerVersion)
import System.Posix.IO (closeFd)
import System.Posix.Process (getProcessID)
import System.Posix.Types (Fd (..))
import Units
import Wire

type Answer = [(String, J)]

refuse :: String -> IO Answer
refuse msg = do
  hPutStrLn stderr ("toll-worker-haskell: " ++ msg)
  return [("ok", JB False), ("error", JS msg)]

send :: Answer -> IO ()
send a = putStrLn (render a) >> hFlush stdout

hello :: IO Answer
hello = do
  pid <- getProcessID
  return
    [ ("ok", JB True)
    , ("runtime", JS "haskell")
    , ("version", JS (compilerName ++ " " ++ showVersion fullCompilerVersion))
    , ("wire", JI 1)
    , ("pid", JI (fromIntegral pid))
    , ("ops", JL ["transfer", "spawn", "ring", "ffi"])
    , ("transports", JL ["pipe", "unix", "tcp"])
    , ("units", JL ["forkio"])
    , ("bindings", JL bindings)
    ]

transfer :: Fault -> [(String, Value)] -> IO Answer
transfer fault c = case str "transport" c of
  Just "pipe" -> case (int "read_fd" c, int "write_fd" c) of
    (Just r, Just w) -> run (Fd (fromIntegral r)) (Fd (fromIntegral w)) False
    _ -> refuse "transfer command lacks `read_fd` or `write_fd`"
  Just "unix" -> case str "path" c of
    Just path -> connectUnix path >>= connected
    Nothing -> refuse "unix transfer command lacks `path`"
  Just "tcp" -> case (str "host" c, int "port" c) of
    (Just host, Just port) -> connectTcp host (fromIntegral port) >>= connected
    _ -> refuse "tcp transfer command lacks `host` or `port`"
  other -> refuse ("unsupported transport " ++ maybe "(none)" show other ++ ": this worker speaks pipe, unix, tcp")
  where
    connected (Left why) = refuse ("cannot connect: " ++ why)
    connected (Right fd) = run fd fd True
    run inFd outFd owned = do
      send [("ok", JB True), ("event", JS "ready")]
      r <- serve fault inFd outFd
      if owned then closeQuietly inFd else return ()
      case r of
        Left why -> refuse why
        Right (frames, items) ->
          return [("ok", JB True), ("event", JS "done"), ("frames", JI (fromIntegral frames)), ("items", JI (fromIntegral items))]
    closeQuietly fd = (try (closeFd fd) :: IO (Either IOException ())) >> return ()

units :: Fault -> String -> [(String, Value)] -> IO Answer
units fault op c = case int "n" c of
  Nothing -> refuse ("`" ++ op ++ "` needs a whole number `n`")
  Just n -> do
    case fault of
      ExitAt k | n >= 0 && fromIntegral n >= k -> exitWith (ExitFailure 3)
      _ -> return ()
    case str "unit" c of
      Just "forkio" -> go n
      other -> refuse ("unknown unit " ++ maybe "(none)" show other ++ ": the haskell worker has forkio")
  where
    go n
      | op == "spawn" =
          if n < 1
            then refuse "spawn needs n of at least 1"
            else do
              r <- spawnForkIO (fromIntegral n)
              return $ case r of
                Right (ns, memKb, made) ->
                  [ ("ok", JB True), ("event", JS "done"), ("unit", JS "forkio"), ("n", JI n)
                  , ("made", JI (fromIntegral made)), ("ns", JI (fromIntegral ns))
                  , ("mem_kb", JI (fromIntegral memKb)), ("mem_how", JS "rss")
                  ]
                Left (k, why) ->
                  [ ("ok", JB False), ("limit", JB True), ("created", JI (fromIntegral k))
                  , ("error", JS ("created " ++ show k ++ " of " ++ show n ++ " units: " ++ why))
                  ]
      | otherwise = case int "m" c of
          Just m | n >= 2 && m >= 1 -> do
            (ns, hops) <- ringForkIO (fromIntegral n) (fromIntegral m)
            return
              [ ("ok", JB True), ("event", JS "done"), ("unit", JS "forkio"), ("n", JI n), ("m", JI m)
              , ("hops", JI (fromIntegral hops)), ("ns", JI (fromIntegral ns))
              ]
          _ -> refuse "a ring needs n of at least 2 and m of at least 1"

ffi :: [(String, Value)] -> IO Answer
ffi c = case (str "binding" c, int "n" c, int "reps" c, int "seed" c) of
  (Just b, Just n, Just reps, Just seed) | n >= 0 && reps >= 1 && seed >= 0 -> do
    let touch = maybe "all" id (str "touch" c)
        pass = maybe "pinned" id (str "pass" c)
        key
          | pass == "callback" = "count"
          | touch == "receipt" = "receipt"
          | otherwise = "sum"
    r <- ffiCalls b pass touch (fromIntegral n) (fromIntegral reps) (fromIntegral seed)
    case r of
      Left why -> refuse why
      Right (ns, s) ->
        return
          [ ("ok", JB True), ("event", JS "done"), ("binding", JS b), ("n", JI n), ("reps", JI reps)
          , ("ns", JI (fromIntegral ns)), (key, JI (fromIntegral s))
          ]
  _ -> refuse "`ffi` needs a binding and whole numbers n, reps (at least 1) and seed"

main :: IO ()
main = do
  hSetBuffering stdout LineBuffering
  fault <- maybe NoFault parseFault <$> lookupEnv "TOLL_WORKER_FAULT"
  let loop = do
        eof <- isEOF
        if eof
          then return ()
          else do
            line <- getLine
            if null line
              then loop
              else case parseObject line of
                Left why -> refuse ("not JSON: " ++ why) >>= send >> loop
                Right c -> case str "op" c of
                  Just "exit" -> return ()
                  Just "hello" -> hello >>= send >> loop
                  Just "transfer" -> transfer fault c >>= send >> loop
                  Just op | op == "spawn" || op == "ring" -> units fault op c >>= send >> loop
                  Just "ffi" -> ffi c >>= send >> loop
                  other -> refuse ("unknown op " ++ maybe "(none)" show other) >>= send >> loop
  loop
