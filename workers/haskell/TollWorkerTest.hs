-- | The Haskell worker's own test, run from the repository root: the frames
-- and sessions of spec/vectors, fault and command parsing, a small spawn and
-- a small ring, the ffi bindings' sums. Prints "haskell worker: N passed" or exits 1.
module Main (main) where

import Control.Monad (forM, unless)
import Data.Char (digitToInt, intToDigit)
import Data.List (isInfixOf)
import Data.IORef
import Data.Word (Word8)
import Ffi (ffiCalls)
import Foreign.Marshal.Alloc (allocaBytes)
import Foreign.Marshal.Array (peekArray, pokeArray)
import Json
import System.Directory (getTemporaryDirectory, removeFile)
import System.Exit (exitFailure)
import System.IO
import System.Posix.IO
import Units
import Wire

fromHex :: String -> [Word8]
fromHex (a : b : rest) = fromIntegral (digitToInt a * 16 + digitToInt b) : fromHex rest
fromHex _ = []

toHex :: [Word8] -> String
toHex = concatMap (\b -> [intToDigit (fromIntegral b `div` 16), intToDigit (fromIntegral b `mod` 16)])

rows :: FilePath -> IO [[String]]
rows path = do
  text <- readFile path
  return [splitTabs l | l <- lines text, not (null l), take 1 l /= "#"]
  where
    splitTabs s = case break (== '\t') s of
      (a, '\t' : rest) -> a : splitTabs rest
      (a, _) -> [a]

-- | The bytes a session's worker writes when fed `input`.
runSession :: [Word8] -> IO [Word8]
runSession input = do
  tmp <- getTemporaryDirectory
  (inPath, h) <- openBinaryTempFile tmp "toll-hs-in"
  allocaBytes (length input) $ \p -> pokeArray p input >> hPutBuf h p (length input)
  hClose h
  (outPath, oh) <- openBinaryTempFile tmp "toll-hs-out"
  hClose oh
  inFd <- openFd inPath ReadOnly Nothing defaultFileFlags
  outFd <- openFd outPath WriteOnly Nothing defaultFileFlags
  _ <- serve NoFault inFd outFd
  closeFd inFd
  closeFd outFd
  out <- withBinaryFile outPath ReadMode $ \rh -> do
    size <- fromIntegral <$> hFileSize rh
    allocaBytes size $ \p -> hGetBuf rh p size >> peekArray size p
  removeFile inPath
  removeFile outPath
  return out

main :: IO ()
main = do
  passed <- newIORef (0 :: Int)
  failed <- newIORef (0 :: Int)
  let check name ok =
        if ok
          then modifyIORef' passed (+ 1)
          else modifyIORef' failed (+ 1) >> hPutStrLn stderr ("FAIL " ++ name)
  frames <- rows "spec/vectors/frames.tsv"
  _ <- forM frames $ \row -> case row of
    [name, "request", kind, _, sq, count, _, items, hex] -> do
      let bytes = fromHex hex
      allocaBytes (length bytes) $ \p -> do
        pokeArray p bytes
        h <- decodeHeader p 0
        let n = read count :: Int
        got <- decodeItems p headerLen n
        let want = if items == "-" then [] else map read (splitComma items)
        check name $
          hMagicOk h
            && hKind h == (if kind == "end" then 2 else 1)
            && hSeq h == read sq
            && hCount h == fromIntegral n
            && got == want
    [name, "reply", _, status, sq, count, total, _, hex] ->
      allocaBytes replyLen $ \p -> do
        encodeReply p (if status == "ok" then 0 else 1) (read sq) (read count) (read total)
        out <- peekArray replyLen p
        check name (toHex out == hex)
    other -> check ("malformed row " ++ show other) False
  sessions <- rows "spec/vectors/sessions.tsv"
  _ <- forM sessions $ \row -> case row of
    [name, input, output] -> do
      out <- runSession (fromHex input)
      check ("session " ++ name) (toHex out == output)
    other -> check ("malformed session " ++ show other) False
  check "fault exit" (parseFault "exit:5" == ExitAt 5)
  check "fault garbage" (parseFault "garbage:0" == GarbageAt 0)
  check "fault other" (parseFault "exit:" == NoFault && parseFault "crash:1" == NoFault)
  let cmd = parseObject "{\"op\":\"ring\",\"unit\":\"forkio\",\"n\":10,\"m\":-3,\"x\":[1,{\"y\":null}],\"z\":1.5}"
  check "command parses, unknown fields ignored" $ case cmd of
    Right c -> str "op" c == Just "ring" && int "n" c == Just 10 && int "m" c == Just (-3)
    Left _ -> False
  check "a bad command is refused" (either (const True) (const False) (parseObject "{\"op\":"))
  spawned <- spawnForkIO 500
  check "spawn 500 forkIO threads" (either (const False) (\(ns, _, made) -> ns > 0 && made == 500) spawned)
  (ns, hops) <- ringForkIO 10 100
  check "ring of 10, 100 rounds" (hops == 1000 && ns > 0)
  -- ffi: both bindings return spec/vectors/ffi.tsv's sums (toll_ffi.c compiled in).
  sums <- rows "spec/vectors/ffi.tsv"
  check "enough ffi vectors" (length sums >= 8)
  _ <- forM [(b, row) | b <- ["safe", "unsafe"], row <- sums] $ \(b, row) -> case row of
    [name, n, seed, total] -> do
      r <- ffiCalls b "pinned" "all" (read n) 3 (read seed)
      check ("ffi " ++ b ++ " " ++ name) (either (const False) (\(t, s) -> t > 0 && s == read total) r)
    other -> check ("malformed ffi row " ++ show other) False
  -- ffi: every way returns spec/vectors/ffi_receipt.tsv's receipts.
  receipts <- rows "spec/vectors/ffi_receipt.tsv"
  check "enough receipt vectors" (length receipts >= 8)
  _ <- forM [(b, w, row) | b <- ["safe", "unsafe"], w <- ["pinned", "copied", "string"], row <- receipts] $ \(b, w, row) -> case row of
    [name, n, seed, inBytes, inString] -> do
      r <- ffiCalls b w "receipt" (read n) 3 (read seed)
      let want = read (if w == "string" then inString else inBytes)
      check ("ffi " ++ b ++ " " ++ w ++ " receipt " ++ name) (either (const False) (\(_, s) -> s == want) r)
    other -> check ("malformed receipt row " ++ show other) False
  -- ffi: the safe binding's callback counts every upcall; unsafe refuses it.
  _ <- forM [0, 1, 2, 1000] $ \n -> do
    r <- ffiCalls "safe" "callback" "receipt" n 3 0
    check ("ffi safe callback " ++ show n) (either (const False) (\(_, s) -> s == fromIntegral n) r)
  unsafeCb <- ffiCalls "unsafe" "callback" "receipt" 1 1 0
  check "ffi unsafe refuses a callback" (either ("may not re-enter Haskell" `isInfixOf`) (const False) unsafeCb)
  refused <- ffiCalls "jni" "pinned" "all" 0 1 0
  check "ffi refuses a binding it lacks" (either (== "no binding jni: the haskell worker has safe, unsafe") (const False) refused)
  p <- readIORef passed
  f <- readIORef failed
  putStrLn ("haskell worker: " ++ show p ++ " passed, " ++ show f ++ " failed")
  unless (f == 0) exitFailure
  where
    splitComma s = case break (== ',') s of
      (a, ',' : rest) -> a : splitComma rest
      (a, _) -> [a]
