-- | @ffi@ (spec/wire.md) for toll's Haskell worker: reps calls into
-- workers/ffi/toll_ffi.c, compiled into the worker by GHC, through
-- @foreign import ccall@ twice over: @safe@ (the RTS saves the thread's
-- state and lets go of its capability around the call, so the call may block
-- or call back) and @unsafe@ (a plain C call from Haskell code). The ways:
-- "pinned", a buffer made once (@allocaBytes@: pinned memory the GC does not
-- move) passed as it is; "copied", that buffer copied into a fresh one each
-- call (@allocaBytes@ + @copyBytes@, what @useAsCStringLen@ does); "string",
-- a 'String' marshalled each call (@withCStringLen@). touch "all" calls
-- toll_ffi_sum, "receipt" toll_ffi_receipt. "callback": toll_ffi_callback
-- calls a Haskell function back n times through a 'FunPtr' made once
-- (@foreign import ccall "wrapper"@), which counts them in an 'IORef'; only
-- a safe call may call back, so the unsafe binding refuses it.
module Ffi (bindings, ffiCalls) where

import Data.Bits ((.&.))
import Data.IORef (modifyIORef', newIORef, readIORef, writeIORef)
import Data.Word (Word64, Word8)
import Foreign.C.String (withCStringLen)
import Foreign.C.Types (CSize (..))
import Foreign.Marshal.Alloc (allocaBytes)
import Foreign.Marshal.Utils (copyBytes)
import Foreign.Ptr (FunPtr, Ptr, castPtr, freeHaskellFunPtr, nullPtr)
import Foreign.Storable (pokeByteOff)
import GHC.Clock (getMonotonicTimeNSec)

type Touch = Ptr Word8 -> CSize -> IO Word64

foreign import ccall safe "toll_ffi_sum" sumSafe :: Touch
foreign import ccall unsafe "toll_ffi_sum" sumUnsafe :: Touch
foreign import ccall safe "toll_ffi_receipt" receiptSafe :: Touch
foreign import ccall unsafe "toll_ffi_receipt" receiptUnsafe :: Touch

type Upcall = Ptr () -> IO ()

foreign import ccall "wrapper" mkUpcall :: Upcall -> IO (FunPtr Upcall)
foreign import ccall safe "toll_ffi_callback" callbackSafe :: FunPtr Upcall -> Ptr () -> Word64 -> IO ()

-- | The bindings; both are compiled in, so always callable.
bindings :: [String]
bindings = ["safe", "unsafe"]

-- | @reps@ calls through the binding, passing n bytes of the pattern (byte
-- i = (seed + 131·i) mod 256; the string way's character i is 1 + that mod
-- 127) the way named, to the C function the touch names: (ns, last return),
-- or why not.
ffiCalls :: String -> String -> String -> Int -> Int -> Int -> IO (Either String (Word64, Word64))
ffiCalls binding pass touch n reps seed = case (binding, touch) of
  ("safe", _) | pass == "callback" -> Right <$> callbacks (fromIntegral n) reps
  ("unsafe", _) | pass == "callback" -> return (Left "unsafe cannot call back: an unsafe foreign call may not re-enter Haskell (use safe)")
  ("safe", "all") -> way sumSafe
  ("safe", "receipt") -> way receiptSafe
  ("unsafe", "all") -> way sumUnsafe
  ("unsafe", "receipt") -> way receiptUnsafe
  ("safe", _) -> bad
  ("unsafe", _) -> bad
  (other, _) -> return (Left ("no binding " ++ other ++ ": the haskell worker has safe, unsafe"))
  where
    bad = return (Left (binding ++ " passes pinned, copied or string (safe: or calls back) and touches all or receipt, not " ++ pass ++ " and " ++ touch))
    byte i = fromIntegral ((seed + 131 * i) .&. 255) :: Word8
    len = fromIntegral n :: CSize
    way f = case pass of
      "pinned" -> Right <$> withPattern (\p -> timed (f p len))
      "copied" -> Right <$> withPattern (\p -> timed (allocaBytes (max n 1) $ \q -> copyBytes q p n >> f q len))
      "string" -> do
        let s = [toEnum (1 + fromIntegral (byte i) `mod` 127) | i <- [0 .. n - 1]] :: String
        Right <$> (sum (map fromEnum s) `seq` timed (withCStringLen s $ \(p, k) -> f (castPtr p) (fromIntegral k)))
      _ -> bad
    withPattern body = allocaBytes (max n 1) $ \p -> do
      mapM_ (\i -> pokeByteOff p i (byte i)) [0 .. n - 1]
      body p
    -- One call shape at every n, 0 included (no bytes).
    timed call = do
      t0 <- getMonotonicTimeNSec
      s <- loop call reps 0
      t1 <- getMonotonicTimeNSec
      return (t1 - t0, s)

-- | @reps@ safe calls, each calling a counting Haskell function back n
-- times: (ns, the last call's count).
callbacks :: Word64 -> Int -> IO (Word64, Word64)
callbacks n reps = do
  count <- newIORef 0
  up <- mkUpcall (\_ -> modifyIORef' count (+ 1))
  t0 <- getMonotonicTimeNSec
  s <- loop (writeIORef count 0 >> callbackSafe up nullPtr n >> readIORef count) reps 0
  t1 <- getMonotonicTimeNSec
  freeHaskellFunPtr up
  return (t1 - t0, s)

-- The loop does nothing but call.
loop :: IO Word64 -> Int -> Word64 -> IO Word64
loop _ 0 s = return s
loop call r _ = call >>= \s -> loop call (r - 1) s
