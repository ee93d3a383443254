<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN" sourcelanguage="en">
<context>
    <name>BucketChartWidget</name>
    <message>
        <source>No clips to place</source>
        <translation>没有可分配的片段</translation>
    </message>
</context>
<context>
    <name>BucketListText</name>
    <message>
        <source>“%1” is not a resolution. Write height by width, for example 480x720.</source>
        <translation>“%1”不是有效的分辨率。请按“高x宽”的格式填写，例如 480x720。</translation>
    </message>
    <message>
        <source>“%1” is not a frame count. Write whole numbers above zero, for example 49.</source>
        <translation>“%1”不是有效的帧数。请填写大于零的整数，例如 49。</translation>
    </message>
</context>
<context>
    <name>BucketPreview</name>
    <message>
        <source>%1 frames, %2×%3</source>
        <translation>%1 帧，%2×%3</translation>
    </message>
    <message>
        <source>Unreadable file</source>
        <translation>文件无法读取</translation>
    </message>
    <message>
        <source>Too short</source>
        <translation>太短</translation>
    </message>
    <message>
        <source>Trim out of range</source>
        <translation>裁剪范围越界</translation>
    </message>
    <message>
        <source>Unknown frame count</source>
        <translation>帧数未知</translation>
    </message>
    <message>
        <source>Unknown picture size</source>
        <translation>画面尺寸未知</translation>
    </message>
    <message>
        <source>No buckets chosen</source>
        <translation>未选择分桶</translation>
    </message>
    <message>
        <source>“%1” has %2 frames after trimming, fewer than its nearest frame bucket needs. Widen the trim, add a shorter frame bucket, or reject the clip.</source>
        <translation>“%1”裁剪后只有 %2 帧，少于最接近的帧数分桶所需的帧数。请扩大裁剪范围、添加更短的帧数分桶，或拒绝此片段。</translation>
    </message>
    <message>
        <source>The trim of “%1” does not fit the clip (frame count: %2). Set the trim again.</source>
        <translation>“%1”的裁剪范围超出了片段（帧数：%2）。请重新设置裁剪范围。</translation>
    </message>
    <message>
        <source>“%1” was imported without its frame count or size. Import it again.</source>
        <translation>“%1”导入时缺少帧数或尺寸信息。请重新导入。</translation>
    </message>
    <message>
        <source>Choose at least one frame bucket and one resolution bucket.</source>
        <translation>请至少选择一个帧数分桶和一个分辨率分桶。</translation>
    </message>
</context>
<context>
    <name>BucketPreviewDialog</name>
    <message>
        <source>1 clip placed</source>
        <translation>已分配 1 个片段</translation>
    </message>
    <message>
        <source>%1 clips placed</source>
        <translation>已分配 %1 个片段</translation>
    </message>
    <message>
        <source>%1 dropped</source>
        <translation>舍弃 %1 个</translation>
    </message>
    <message>
        <source>%1 rejected, not counted</source>
        <translation>%1 个已拒绝，未计入</translation>
    </message>
    <message>
        <source>Bucket Preview</source>
        <translation>分桶预览</translation>
    </message>
    <message>
        <source>&amp;Resolutions:</source>
        <translation>分辨率(&amp;R)：</translation>
    </message>
    <message>
        <source>height x width, for example 480x720, 720x480</source>
        <translation>高x宽，例如 480x720, 720x480</translation>
    </message>
    <message>
        <source>Each clip goes to the resolution closest to its own size</source>
        <translation>每个片段归入与其自身尺寸最接近的分辨率</translation>
    </message>
    <message>
        <source>&amp;Frame buckets:</source>
        <translation>帧数分桶(&amp;F)：</translation>
    </message>
    <message>
        <source>frame counts, for example 49, 25</source>
        <translation>帧数，例如 49, 25</translation>
    </message>
    <message>
        <source>Each clip goes to the frame count closest to its length after trimming; clips shorter than that are dropped</source>
        <translation>每个片段归入与其裁剪后长度最接近的帧数；短于该帧数的片段会被舍弃</translation>
    </message>
    <message>
        <source>&amp;Longest clip:</source>
        <translation>最长片段(&amp;L)：</translation>
    </message>
    <message>
        <source>no limit</source>
        <translation>不限</translation>
    </message>
    <message>
        <source> frames</source>
        <translation> 帧</translation>
    </message>
    <message>
        <source>A clip whose shape differs from its bucket&apos;s is cropped at the centre to fit.</source>
        <translation>形状与分桶不同的片段会居中裁剪以适应分桶。</translation>
    </message>
    <message>
        <source>A clip whose shape differs from its bucket&apos;s is cropped at a random place to fit.</source>
        <translation>形状与分桶不同的片段会在随机位置裁剪以适应分桶。</translation>
    </message>
    <message>
        <source>A clip whose shape differs from its bucket&apos;s is stretched to fit.</source>
        <translation>形状与分桶不同的片段会被拉伸以适应分桶。</translation>
    </message>
    <message>
        <source>The buckets of the Train page&apos;s form, which a run trains with; lists typed here become the form&apos;s.</source>
        <translation>这是“训练”页表单中的分桶，也就是运行训练时所用的分桶；在此输入的列表会写入该表单。</translation>
    </message>
    <message>
        <source>%1 becomes %2</source>
        <translation>%1 改为 %2</translation>
    </message>
    <message>
        <source>This model takes frame counts of %1k + 1: %2.</source>
        <translation>此模型只接受 %1k + 1 的帧数：%2。</translation>
    </message>
    <message>
        <source>%1x%2 becomes %3x%4</source>
        <translation>%1x%2 改为 %3x%4</translation>
    </message>
    <message>
        <source>This model takes sides in multiples of %1 pixels: %2.</source>
        <translation>此模型的边长须为 %1 像素的倍数：%2。</translation>
    </message>
</context>
<context>
    <name>BucketPreviewModel</name>
    <message>
        <source>Dropped: %1</source>
        <translation>已舍弃：%1</translation>
    </message>
    <message>
        <source>Bucket</source>
        <translation>分桶</translation>
    </message>
    <message>
        <source>Frames</source>
        <translation>帧数</translation>
    </message>
    <message>
        <source>Height</source>
        <translation>高度</translation>
    </message>
    <message>
        <source>Width</source>
        <translation>宽度</translation>
    </message>
    <message>
        <source>Clips</source>
        <translation>片段数</translation>
    </message>
</context>
<context>
    <name>BulkCaptionEdit</name>
    <message>
        <source>Type the text to find.</source>
        <translation>请输入要查找的文本。</translation>
    </message>
    <message>
        <source>“%1” is not a valid regular expression: %2 (at character %3). Correct the pattern and preview again.</source>
        <translation>“%1”不是有效的正则表达式：%2（位于第 %3 个字符）。请修正表达式后重新预览。</translation>
    </message>
    <message>
        <source>Type the trigger word to add.</source>
        <translation>请输入要添加的触发词。</translation>
    </message>
</context>
<context>
    <name>BulkReplaceDialog</name>
    <message>
        <source>Type the text to find; the captions it changes are listed above before anything is replaced.</source>
        <translation>请输入要查找的文本；在执行替换之前，将被更改的描述会先列在上方。</translation>
    </message>
    <message>
        <source>1 caption will change. Replacing is one step you can undo with Ctrl+Z.</source>
        <translation>将更改 1 条描述。整个替换操作可用 Ctrl+Z 一步撤销。</translation>
    </message>
    <message>
        <source>%1 captions will change. Replacing is one step you can undo with Ctrl+Z.</source>
        <translation>将更改 %1 条描述。整个替换操作可用 Ctrl+Z 一步撤销。</translation>
    </message>
    <message>
        <source>Replaces text in the caption of 1 clip.</source>
        <translation>替换 1 个片段的描述中的文本。</translation>
    </message>
    <message>
        <source>Replaces text in the captions of %1 clips.</source>
        <translation>替换 %1 个片段的描述中的文本。</translation>
    </message>
    <message>
        <source>Find and Replace in Captions</source>
        <translation>在描述中查找和替换</translation>
    </message>
    <message>
        <source>&amp;Find:</source>
        <translation>查找(&amp;F)：</translation>
    </message>
    <message>
        <source>Replace &amp;with:</source>
        <translation>替换为(&amp;W)：</translation>
    </message>
    <message>
        <source>Regular e&amp;xpression</source>
        <translation>正则表达式(&amp;X)</translation>
    </message>
    <message>
        <source>Use \1 … \9 in the replacement for captured groups</source>
        <translation>在替换文本中用 \1 … \9 引用捕获组</translation>
    </message>
    <message>
        <source>Match &amp;case</source>
        <translation>区分大小写(&amp;C)</translation>
    </message>
    <message>
        <source>&amp;Replace</source>
        <translation>替换(&amp;R)</translation>
    </message>
</context>
<context>
    <name>CaptionChangeTable</name>
    <message>
        <source>Clip</source>
        <translation>片段</translation>
    </message>
    <message>
        <source>Before</source>
        <translation>修改前</translation>
    </message>
    <message>
        <source>After</source>
        <translation>修改后</translation>
    </message>
</context>
<context>
    <name>CaptionDecoder</name>
    <message>
        <source>Re-encoded from %1. Check that the caption reads correctly, then mark it as checked.</source>
        <translation>已从 %1 转换编码。请检查描述是否显示正确，然后将其标记为已检查。</translation>
    </message>
    <message>
        <source>This caption&apos;s bytes are not text in any encoding Tuneframe knows, so they were kept as they are: each byte outside plain ASCII is shown as \xNN. Retype the caption, then mark it as checked.</source>
        <translation>此描述的字节不是 Tuneframe 所知任何编码的文本，因此按原样保留：每个非 ASCII 字节显示为 \xNN。请重新输入描述，然后将其标记为已检查。</translation>
    </message>
    <message>
        <source>Parts of this caption were not valid text and are marked with �. Retype them, then mark the caption as checked.</source>
        <translation>此描述中有部分内容不是有效文本，已用 � 标出。请重新输入这些部分，然后将描述标记为已检查。</translation>
    </message>
    <message>
        <source>This caption was flagged when it was imported: characters in it that are not text (NUL) were replaced with spaces, or it was too long to edit. Check that it reads correctly, then mark it as checked.</source>
        <translation>此描述在导入时被标记：其中不是文本的字符（NUL）已替换为空格，或者它太长而无法编辑。请检查描述是否显示正确，然后将其标记为已检查。</translation>
    </message>
</context>
<context>
    <name>CaptionHistory</name>
    <message>
        <source>Could not save the caption change in the project database “%1” (%2). Check that the disk is not full and the project folder is writable, then try again.</source>
        <translation>无法将描述更改保存到项目数据库“%1”（%2）。请检查磁盘是否已满、项目文件夹是否可写，然后重试。</translation>
    </message>
    <message>
        <source>A clip in this edit is no longer in the project. Reload the clip list and make the edit again.</source>
        <translation>此次编辑涉及的某个片段已不在项目中。请重新加载片段列表，然后重新编辑。</translation>
    </message>
    <message>
        <source>The caption of “%1” changed after this edit was prepared. Preview the edit again, then apply it.</source>
        <translation>准备此次编辑后，“%1”的描述又发生了更改。请重新预览此编辑，然后再应用。</translation>
    </message>
    <message>
        <source>The clip is no longer in the project. Reload the clip list.</source>
        <translation>该片段已不在项目中。请重新加载片段列表。</translation>
    </message>
    <message>
        <source>Undo %1</source>
        <translation>撤销%1</translation>
    </message>
    <message>
        <source>Redo %1</source>
        <translation>重做%1</translation>
    </message>
    <message>
        <source>There is no caption edit to undo.</source>
        <translation>没有可撤销的描述编辑。</translation>
    </message>
    <message>
        <source>There is no caption edit to redo.</source>
        <translation>没有可重做的描述编辑。</translation>
    </message>
    <message>
        <source>Caption Edit</source>
        <translation>描述编辑</translation>
    </message>
    <message>
        <source>Caption Edit (%1 clips)</source>
        <translation>描述编辑（%1 个片段）</translation>
    </message>
    <message>
        <source>Replace in Caption</source>
        <translation>在描述中替换</translation>
    </message>
    <message>
        <source>Replace in Captions (%1 clips)</source>
        <translation>在描述中替换（%1 个片段）</translation>
    </message>
    <message>
        <source>Add Trigger Word</source>
        <translation>添加触发词</translation>
    </message>
    <message>
        <source>Add Trigger Word (%1 clips)</source>
        <translation>添加触发词（%1 个片段）</translation>
    </message>
    <message>
        <source>Caption Change</source>
        <translation>描述更改</translation>
    </message>
    <message>
        <source>Status Change</source>
        <translation>状态更改</translation>
    </message>
    <message>
        <source>Status Change (%1 clips)</source>
        <translation>状态更改（%1 个片段）</translation>
    </message>
    <message>
        <source>Rating</source>
        <translation>评分</translation>
    </message>
    <message>
        <source>Rating (%1 clips)</source>
        <translation>评分（%1 个片段）</translation>
    </message>
    <message>
        <source>Tag Change</source>
        <translation>标签更改</translation>
    </message>
    <message>
        <source>Tag Change (%1 clips)</source>
        <translation>标签更改（%1 个片段）</translation>
    </message>
    <message>
        <source>Trim</source>
        <translation>裁剪</translation>
    </message>
    <message>
        <source>Condition Frame</source>
        <translation>条件帧</translation>
    </message>
    <message>
        <source>Clip Removal</source>
        <translation>移除片段</translation>
    </message>
    <message>
        <source>Clip Removal (%1 clips)</source>
        <translation>移除片段（%1 个片段）</translation>
    </message>
</context>
<context>
    <name>CaptionLength</name>
    <message>
        <source>This caption is %1 characters long, too long to edit here: only its first %2 are shown, and no text encoder reads that far. Shorten it to edit it.</source>
        <translation>此描述长 %1 个字符，太长而无法在此编辑：仅显示前 %2 个字符，而且没有文本编码器会读取这么长的内容。请先缩短它再编辑。</translation>
    </message>
    <message>
        <source>The caption of “%1” (from “%2”) is %3 characters long, more than the %4 the caption editor shows. It was imported and flagged: check that the right file was read, then shorten it in the clip&apos;s caption editor.</source>
        <translation>“%1”的描述（来自“%2”）长 %3 个字符，超过描述编辑器显示的 %4 个字符。它已导入并被标记：请检查读取的文件是否正确，然后在片段的描述编辑器中将其缩短。</translation>
    </message>
</context>
<context>
    <name>CaptionWriter</name>
    <message>
        <source>“%1” would be the caption file of more than one selected clip, so it was not written for “%2”. Rename one of the clips so that their names differ.</source>
        <translation>“%1”会同时成为多个所选片段的描述文件，因此未为“%2”写入。请重命名其中一个片段，使它们的名称不同。</translation>
    </message>
    <message>
        <source>“%1” has no caption, so “%2” was not written. Write a caption first.</source>
        <translation>“%1”没有描述，因此未写入“%2”。请先撰写描述。</translation>
    </message>
    <message>
        <source>The folder of “%1” no longer exists, so its caption was not written. Reconnect the drive or move the clip back.</source>
        <translation>“%1”所在的文件夹已不存在，因此未写入其描述。请重新连接驱动器，或将片段移回原处。</translation>
    </message>
    <message>
        <source>Could not write “%1” (%2). Check that the folder is writable and the disk is not full.</source>
        <translation>无法写入“%1”（%2）。请检查该文件夹是否可写，以及磁盘是否已满。</translation>
    </message>
    <message>
        <source>The caption of “%1” was not written: %2</source>
        <translation>“%1”的描述未写入：%2</translation>
    </message>
    <message>
        <source>The caption of “%1” is still the undecoded bytes it was imported with, so “%2” was not written over. Retype the caption and mark it as checked first.</source>
        <translation>“%1”的描述仍是导入时未能解码的原始字节，因此未覆盖写入“%2”。请先重新输入描述并将其标记为已检查。</translation>
    </message>
</context>
<context>
    <name>ClipFilterBar</name>
    <message>
        <source>%1×%2</source>
        <translation>%1×%2</translation>
    </message>
    <message>
        <source>Dropped by the buckets</source>
        <translation>被分桶舍弃</translation>
    </message>
    <message>
        <source>Search captions (Ctrl+F)</source>
        <translation>搜索描述（Ctrl+F）</translation>
    </message>
    <message>
        <source>Shows the clips whose caption contains this text</source>
        <translation>显示描述中包含此文本的片段</translation>
    </message>
    <message>
        <source>Any status</source>
        <translation>全部状态</translation>
    </message>
    <message>
        <source>Not rejected</source>
        <translation>未拒绝</translation>
    </message>
    <message>
        <source>Status</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>Any tag</source>
        <translation>全部标签</translation>
    </message>
    <message>
        <source>Tag</source>
        <translation>标签</translation>
    </message>
    <message>
        <source>Any bucket</source>
        <translation>全部分桶</translation>
    </message>
    <message>
        <source>Training bucket, as the bucket preview assigns them</source>
        <translation>训练分桶，与分桶预览中的分配一致</translation>
    </message>
    <message>
        <source>Missing caption</source>
        <translation>缺少描述</translation>
    </message>
    <message>
        <source>More Filters</source>
        <translation>更多筛选条件</translation>
    </message>
    <message>
        <source>Clear Filters</source>
        <translation>清除筛选条件</translation>
    </message>
    <message>
        <source>&amp;Resolution:</source>
        <translation>分辨率(&amp;R)：</translation>
    </message>
    <message>
        <source>Any</source>
        <translation>全部</translation>
    </message>
    <message>
        <source>D&amp;uration:</source>
        <translation>时长(&amp;U)：</translation>
    </message>
    <message>
        <source>F&amp;rames:</source>
        <translation>帧数(&amp;R)：</translation>
    </message>
    <message>
        <source>any</source>
        <translation>不限</translation>
    </message>
    <message>
        <source> s</source>
        <translation> 秒</translation>
    </message>
    <message>
        <source>Shortest duration after trimming, in seconds</source>
        <translation>裁剪后的最短时长（秒）</translation>
    </message>
    <message>
        <source>Longest duration after trimming, in seconds</source>
        <translation>裁剪后的最长时长（秒）</translation>
    </message>
    <message>
        <source>Fewest frames after trimming</source>
        <translation>裁剪后的最少帧数</translation>
    </message>
    <message>
        <source>Most frames after trimming</source>
        <translation>裁剪后的最多帧数</translation>
    </message>
    <message>
        <source>Captions to check</source>
        <translation>待检查的描述</translation>
    </message>
    <message>
        <source>Captions flagged during import: the text encoding was guessed, characters that were not text were replaced, or the caption is too long to edit</source>
        <translation>导入时被标记的描述：猜测了文本编码、替换了不是文本的字符，或描述太长而无法编辑</translation>
    </message>
    <message>
        <source>Problems only</source>
        <translation>仅显示有问题的</translation>
    </message>
    <message>
        <source>Files that are missing, damaged or not videos</source>
        <translation>缺失、损坏或不是视频的文件</translation>
    </message>
    <message>
        <source>Not in a bucket</source>
        <translation>未进入分桶</translation>
    </message>
    <message>
        <source>The bucket a run from the Train page&apos;s form puts the clip in; “Not in a bucket”: the clips it leaves out (too short, unreadable)</source>
        <translation>按“训练”页表单发起的运行会把片段放入的分桶；“未进入分桶”：被排除的片段（太短、无法读取）</translation>
    </message>
</context>
<context>
    <name>ClipGridDelegate</name>
    <message>
        <source>No caption</source>
        <translation>无描述</translation>
    </message>
    <message>
        <source>Check caption</source>
        <translation>检查描述</translation>
    </message>
    <message>
        <source>Still</source>
        <translation>图片</translation>
    </message>
</context>
<context>
    <name>ClipImportPanel</name>
    <message>
        <source>Looking for clips…</source>
        <translation>正在查找片段…</translation>
    </message>
    <message>
        <source>Import a Folder of Clips</source>
        <translation>导入片段文件夹</translation>
    </message>
    <message>
        <source>Import Clips</source>
        <translation>导入片段</translation>
    </message>
    <message>
        <source>Videos, images and caption tables (*.mp4 *.mov *.mkv *.webm *.avi *.m4v *.png *.jpg *.jpeg *.webp *.csv *.jsonl)</source>
        <translation>视频、图片和描述表格 (*.mp4 *.mov *.mkv *.webm *.avi *.m4v *.png *.jpg *.jpeg *.webp *.csv *.jsonl)</translation>
    </message>
    <message>
        <source>All files (*)</source>
        <translation>所有文件 (*)</translation>
    </message>
    <message>
        <source>Importing %1 of %2: %3</source>
        <translation>正在导入第 %1 个，共 %2 个：%3</translation>
    </message>
    <message>
        <source>Dismiss</source>
        <translation>关闭</translation>
    </message>
    <message>
        <source>Show details…</source>
        <translation>显示详细信息…</translation>
    </message>
    <message>
        <source>Cancelling…</source>
        <translation>正在取消…</translation>
    </message>
</context>
<context>
    <name>ClipInspectorPanel</name>
    <message>
        <source>%1×%2</source>
        <translation>%1×%2</translation>
    </message>
    <message>
        <source>still image</source>
        <translation>静态图片</translation>
    </message>
    <message>
        <source>1 frame</source>
        <translation>1 帧</translation>
    </message>
    <message>
        <source>%1 frames</source>
        <translation>%1 帧</translation>
    </message>
    <message>
        <source>%1 fps</source>
        <translation>%1 fps</translation>
    </message>
    <message>
        <source>%1 s</source>
        <translation>%1 秒</translation>
    </message>
    <message>
        <source>Describe what happens in the clip…</source>
        <translation>描述片段中发生的内容…</translation>
    </message>
    <message>
        <source>Tags, separated by commas</source>
        <translation>标签，用逗号分隔</translation>
    </message>
    <message>
        <source>%1 clips selected</source>
        <translation>已选择 %1 个片段</translation>
    </message>
    <message>
        <source>Status and rating apply to every selected clip; the Dataset menu has the other bulk edits.</source>
        <translation>状态和评分将应用于每个所选片段；其他批量编辑功能位于“数据集”菜单中。</translation>
    </message>
    <message>
        <source>1 of them cannot be used (a missing or damaged file).</source>
        <translation>其中 1 个无法使用（文件缺失或已损坏）。</translation>
    </message>
    <message>
        <source>%1 of them cannot be used (missing or damaged files).</source>
        <translation>其中 %1 个无法使用（文件缺失或已损坏）。</translation>
    </message>
    <message>
        <source>Select one clip to edit its caption, or use Find and Replace (Ctrl+H) for all of them.</source>
        <translation>选择单个片段以编辑其描述，或使用“查找和替换”（Ctrl+H）一次编辑全部所选片段。</translation>
    </message>
    <message>
        <source>Use Add Tags… in the Dataset menu for several clips</source>
        <translation>要为多个片段添加标签，请使用“数据集”菜单中的“添加标签…”</translation>
    </message>
    <message>
        <source>The token count appears when the project holds a model with its tokenizer (models/&lt;name&gt;/tokenizer).</source>
        <translation>当项目中包含带有分词器的模型（models/&lt;name&gt;/tokenizer）时，会显示词元数。</translation>
    </message>
    <message>
        <source>The token count is unavailable: %1</source>
        <translation>词元数不可用：%1</translation>
    </message>
    <message>
        <source>%1 / %2 tokens</source>
        <translation>%1 / %2 个词元</translation>
    </message>
    <message>
        <source>Too long for %1: the text encoder reads only the first %2 tokens, so the end of this caption is cut off.</source>
        <translation>对 %1 来说过长：文本编码器只读取前 %2 个词元，因此此描述的末尾会被截断。</translation>
    </message>
    <message>
        <source>Counted with the tokenizer of %1, whose text encoder reads %2 tokens.</source>
        <translation>使用 %1 的分词器计数，其文本编码器可读取 %2 个词元。</translation>
    </message>
    <message>
        <source>Select a clip to play it, trim it and edit its caption.

Arrow keys move through the clips; A accepts, R rejects, U marks for review, 1–5 rate, Enter or Ctrl+E edits the caption.</source>
        <translation>选择一个片段即可播放、裁剪并编辑其描述。

方向键在片段间移动；A 接受，R 拒绝，U 标记为待审核，1–5 评分，Enter 或 Ctrl+E 编辑描述。</translation>
    </message>
    <message>
        <source>Status:</source>
        <translation>状态：</translation>
    </message>
    <message>
        <source>Rating:</source>
        <translation>评分：</translation>
    </message>
    <message>
        <source>&amp;Caption</source>
        <translation>描述(&amp;C)</translation>
    </message>
    <message>
        <source>Mark as Checked</source>
        <translation>标记为已检查</translation>
    </message>
    <message>
        <source>&amp;Tags:</source>
        <translation>标签(&amp;T)：</translation>
    </message>
    <message>
        <source>Image-to-video condition: frame %1</source>
        <translation>图生视频条件：第 %1 帧</translation>
    </message>
    <message>
        <source>Image-to-video condition: the first frame used (%1)</source>
        <translation>图生视频条件：所用的第一帧（%1）</translation>
    </message>
    <message>
        <source>Use This Frame</source>
        <translation>使用此帧</translation>
    </message>
    <message>
        <source>Condition this clip on the frame on screen when training an image-to-video model; its picture also serves as a validation image.</source>
        <translation>训练图生视频模型时，以当前显示的帧作为此片段的条件图像；该图像也用作验证图像。</translation>
    </message>
    <message>
        <source>First Frame</source>
        <translation>第一帧</translation>
    </message>
    <message>
        <source>Condition on the first frame used again.</source>
        <translation>重新以所用的第一帧作为条件。</translation>
    </message>
    <message>
        <source>Keep the First %1 Characters</source>
        <translation>保留前 %1 个字符</translation>
    </message>
    <message>
        <source>Cuts the caption after the part shown, so it can be edited here. Undo brings the whole caption back.</source>
        <translation>在显示的部分之后截断描述，以便在此编辑。撤销可恢复完整描述。</translation>
    </message>
    <message>
        <source>%1, stretched</source>
        <translation>%1，拉伸</translation>
    </message>
    <message>
        <source>%1, cropped</source>
        <translation>%1，裁剪</translation>
    </message>
    <message>
        <source>No token count</source>
        <translation>无词元计数</translation>
    </message>
</context>
<context>
    <name>ClipPlanPanel</name>
    <message>
        <source>Shows each clip that is reshaped, left out or not reviewed.</source>
        <translation>显示每个被改变形状、被排除或尚未审核的片段。</translation>
    </message>
    <message>
        <source>Clip</source>
        <translation>片段</translation>
    </message>
    <message>
        <source>What happens</source>
        <translation>处理方式</translation>
    </message>
    <message>
        <source>Show in Dataset</source>
        <translation>在数据集中显示</translation>
    </message>
    <message>
        <source>Selects these clips on the Dataset page (the selected rows only, when some are selected).</source>
        <translation>在“数据集”页选中这些片段（如已选中若干行，则只选这些行）。</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1：%2</translation>
    </message>
    <message>
        <source>%1 (not reviewed yet)</source>
        <translation>%1（尚未审核）</translation>
    </message>
</context>
<context>
    <name>ClipRecord</name>
    <message>
        <source>Needs review</source>
        <translation>待审核</translation>
    </message>
    <message>
        <source>Accepted</source>
        <translation>已接受</translation>
    </message>
    <message>
        <source>Rejected</source>
        <translation>已拒绝</translation>
    </message>
    <message>
        <source>Missing</source>
        <translation>缺失</translation>
    </message>
    <message>
        <source>Empty file</source>
        <translation>空文件</translation>
    </message>
    <message>
        <source>Not a video</source>
        <translation>不是视频</translation>
    </message>
    <message>
        <source>Truncated</source>
        <translation>不完整</translation>
    </message>
    <message>
        <source>Damaged</source>
        <translation>已损坏</translation>
    </message>
    <message>
        <source>Unsupported format</source>
        <translation>不支持的格式</translation>
    </message>
    <message>
        <source>Unreadable</source>
        <translation>无法读取</translation>
    </message>
    <message>
        <source>“%1” is missing. Put the file back or reconnect its drive, then import it again.</source>
        <translation>“%1”缺失。请将文件放回原处或重新连接其所在的驱动器，然后重新导入。</translation>
    </message>
    <message>
        <source>“%1” is empty (0 bytes). Copy the clip again from its source, then import it again.</source>
        <translation>“%1”为空（0 字节）。请从源位置重新复制该片段，然后重新导入。</translation>
    </message>
    <message>
        <source>“%1” is not a video or an image Tuneframe can read. Convert it to MP4 or PNG, or remove it from the dataset.</source>
        <translation>“%1”不是 Tuneframe 能读取的视频或图片。请将其转换为 MP4 或 PNG，或将其从数据集中移除。</translation>
    </message>
    <message>
        <source>“%1” is cut short: fewer frames decode than the file lists. Copy the clip again from its source, then import it again.</source>
        <translation>“%1”不完整：能解码的帧数少于文件中记录的帧数。请从源位置重新复制该片段，然后重新导入。</translation>
    </message>
    <message>
        <source>“%1” is damaged and cannot be decoded. Copy the clip again from its source, or remove it from the dataset.</source>
        <translation>“%1”已损坏，无法解码。请从源位置重新复制该片段，或将其从数据集中移除。</translation>
    </message>
    <message>
        <source>“%1” uses a format this build of Tuneframe cannot decode. Convert it to H.264 MP4, then import the converted file.</source>
        <translation>“%1”使用的格式无法由此版本的 Tuneframe 解码。请将其转换为 H.264 MP4，然后导入转换后的文件。</translation>
    </message>
    <message>
        <source>“%1” cannot be read. Check the file&apos;s permissions and the drive, then import it again.</source>
        <translation>无法读取“%1”。请检查该文件的权限及其所在的驱动器，然后重新导入。</translation>
    </message>
</context>
<context>
    <name>ClipStore</name>
    <message>
        <source>Could not save the change in the project database “%1” (%2). Check that the disk is not full and the project folder is writable, then try again.</source>
        <translation>无法将更改保存到项目数据库“%1”（%2）。请检查磁盘是否已满、项目文件夹是否可写，然后重试。</translation>
    </message>
    <message>
        <source>Could not read the clips from the project database “%1” (%2). Restore the project from a backup if this persists.</source>
        <translation>无法从项目数据库“%1”读取片段（%2）。如果问题持续出现，请从备份恢复项目。</translation>
    </message>
    <message>
        <source>The clip is no longer in the project. Reload the clip list.</source>
        <translation>该片段已不在项目中。请重新加载片段列表。</translation>
    </message>
    <message>
        <source>The trim %1 to %2 does not fit “%3” (frame count: %4). Choose an in point before the out point, both within the clip.</source>
        <translation>裁剪范围 %1 至 %2 不适用于“%3”（帧数：%4）。请选择早于出点的入点，且两者都须在片段范围内。</translation>
    </message>
    <message>
        <source>the end</source>
        <translation>末尾</translation>
    </message>
    <message>
        <source>A rating goes from 0 (unrated) to %1 stars; %2 is out of range.</source>
        <translation>评分范围为 0（未评分）到 %1 星；%2 超出范围。</translation>
    </message>
    <message>
        <source>Frame %1 is not in “%2” (frame count: %3). Choose a frame of the clip.</source>
        <translation>第 %1 帧不在“%2”中（帧数：%3）。请选择片段中的一帧。</translation>
    </message>
</context>
<context>
    <name>ClipTableModel</name>
    <message>
        <source>%1×%2</source>
        <translation>%1×%2</translation>
    </message>
    <message>
        <source>Still image</source>
        <translation>静态图片</translation>
    </message>
    <message>
        <source>%1 s</source>
        <translation>%1 秒</translation>
    </message>
    <message>
        <source>%1 of %2</source>
        <translation>%1 / %2</translation>
    </message>
    <message>
        <source>Clip</source>
        <translation>片段</translation>
    </message>
    <message>
        <source>Status</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>Rating</source>
        <translation>评分</translation>
    </message>
    <message>
        <source>Resolution</source>
        <translation>分辨率</translation>
    </message>
    <message>
        <source>Duration</source>
        <translation>时长</translation>
    </message>
    <message>
        <source>Frames</source>
        <translation>帧数</translation>
    </message>
    <message>
        <source>Bucket</source>
        <translation>分桶</translation>
    </message>
    <message>
        <source>Caption</source>
        <translation>描述</translation>
    </message>
    <message>
        <source>Tags</source>
        <translation>标签</translation>
    </message>
    <message>
        <source>Problem</source>
        <translation>问题</translation>
    </message>
</context>
<context>
    <name>CommandLine</name>
    <message numerus="yes">
        <source>Only one project folder can be opened at a time; got %n.</source>
        <translation>
            <numerusform>一次只能打开一个项目文件夹；实际给出了 %n 个。</numerusform>
        </translation>
    </message>
    <message>
        <source>--demo opens the demo project, so it cannot be given with a project folder.</source>
        <translation>--demo 会打开演示项目，因此不能与项目文件夹同时指定。</translation>
    </message>
    <message>
        <source>Usage: %1 [options] [PROJECT_DIR]

Tuneframe studio: build video datasets and fine-tune video diffusion models.

Arguments:
  PROJECT_DIR    a project folder (one holding project.sqlite) to open

Options:
  --demo         open the demo project, creating it first when needed
  -h, --help     show this help and exit
  -v, --version  show the version and exit

Started with no project folder, the studio opens the project used last, or the
demo project the first time.

Settings are read from $TUNEFRAME_CONFIG_DIR when it is set.
</source>
        <translation>用法：%1 [选项] [PROJECT_DIR]

Tuneframe 工作室：构建视频数据集并微调视频扩散模型。

参数：
  PROJECT_DIR    要打开的项目文件夹（包含 project.sqlite 的文件夹）

选项：
  --demo         打开演示项目，必要时先创建它
  -h, --help     显示此帮助并退出
  -v, --version  显示版本并退出

未指定项目文件夹启动时，工作室会打开上次使用的项目；
首次启动时则打开演示项目。

如果设置了 $TUNEFRAME_CONFIG_DIR，则从该目录读取设置。
</translation>
    </message>
</context>
<context>
    <name>ConditionImages</name>
    <message>
        <source>Frame %1 of %2 could not be read: %3</source>
        <translation>无法读取 %2 的第 %1 帧：%3</translation>
    </message>
    <message>
        <source>%1 has no frame %2.</source>
        <translation>%1 没有第 %2 帧。</translation>
    </message>
    <message>
        <source>%1 could not be written: %2</source>
        <translation>无法写入 %1：%2</translation>
    </message>
</context>
<context>
    <name>DatasetActions</name>
    <message>
        <source>&amp;Undo</source>
        <translation>撤销(&amp;U)</translation>
    </message>
    <message>
        <source>&amp;Redo</source>
        <translation>重做(&amp;R)</translation>
    </message>
    <message>
        <source>Import &amp;Folder…</source>
        <translation>导入文件夹(&amp;F)…</translation>
    </message>
    <message>
        <source>Import…</source>
        <translation>导入…</translation>
    </message>
    <message>
        <source>Import every clip in a folder, with the captions beside them (Ctrl+I)</source>
        <translation>导入文件夹中的所有片段及其旁边的描述（Ctrl+I）</translation>
    </message>
    <message>
        <source>Import F&amp;iles…</source>
        <translation>导入文件(&amp;I)…</translation>
    </message>
    <message>
        <source>Show as &amp;Grid</source>
        <translation>以网格显示(&amp;G)</translation>
    </message>
    <message>
        <source>Show the clips as a grid of thumbnails (Ctrl+Shift+G)</source>
        <translation>以缩略图网格显示片段（Ctrl+Shift+G）</translation>
    </message>
    <message>
        <source>Show as &amp;Table</source>
        <translation>以表格显示(&amp;T)</translation>
    </message>
    <message>
        <source>Show the clips as a table (Ctrl+Shift+T)</source>
        <translation>以表格显示片段（Ctrl+Shift+T）</translation>
    </message>
    <message>
        <source>&amp;Search Captions</source>
        <translation>搜索描述(&amp;S)</translation>
    </message>
    <message>
        <source>&amp;Edit Caption</source>
        <translation>编辑描述(&amp;E)</translation>
    </message>
    <message>
        <source>&amp;Accept</source>
        <translation>接受(&amp;A)</translation>
    </message>
    <message>
        <source>Accept for training (A)</source>
        <translation>接受用于训练（A）</translation>
    </message>
    <message>
        <source>Needs Re&amp;view</source>
        <translation>待审核(&amp;U)</translation>
    </message>
    <message>
        <source>Mark as still to review (U)</source>
        <translation>标记为仍待审核（U）</translation>
    </message>
    <message>
        <source>&amp;Reject</source>
        <translation>拒绝(&amp;R)</translation>
    </message>
    <message>
        <source>Leave out of training (R)</source>
        <translation>不用于训练（R）</translation>
    </message>
    <message>
        <source>Clear Rating</source>
        <translation>清除评分</translation>
    </message>
    <message>
        <source>Rate 1 Star</source>
        <translation>评为 1 星</translation>
    </message>
    <message>
        <source>Rate %1 Stars</source>
        <translation>评为 %1 星</translation>
    </message>
    <message>
        <source>Insert Tri&amp;gger Word</source>
        <translation>插入触发词(&amp;G)</translation>
    </message>
    <message>
        <source>Insert the project&apos;s trigger word at the cursor (Ctrl+Shift+W)</source>
        <translation>在光标处插入项目的触发词（Ctrl+Shift+W）</translation>
    </message>
    <message>
        <source>Find and Re&amp;place in Captions…</source>
        <translation>在描述中查找和替换(&amp;P)…</translation>
    </message>
    <message>
        <source>Add Trigger &amp;Word to Captions…</source>
        <translation>向描述添加触发词(&amp;W)…</translation>
    </message>
    <message>
        <source>Add Ta&amp;gs…</source>
        <translation>添加标签(&amp;G)…</translation>
    </message>
    <message>
        <source>Remo&amp;ve Tags…</source>
        <translation>移除标签(&amp;V)…</translation>
    </message>
    <message>
        <source>&amp;Write Captions to .txt Files</source>
        <translation>将描述写入 .txt 文件(&amp;W)</translation>
    </message>
    <message>
        <source>Save each caption next to its clip, as a .txt file of the same name</source>
        <translation>将每条描述另存为与片段同名的 .txt 文件，放在片段旁边</translation>
    </message>
    <message>
        <source>E&amp;xport Dataset…</source>
        <translation>导出数据集(&amp;X)…</translation>
    </message>
    <message>
        <source>Export…</source>
        <translation>导出…</translation>
    </message>
    <message>
        <source>&amp;Bucket Preview…</source>
        <translation>分桶预览(&amp;B)…</translation>
    </message>
    <message>
        <source>Buckets…</source>
        <translation>分桶…</translation>
    </message>
    <message>
        <source>Remove from &amp;Project…</source>
        <translation>从项目中移除(&amp;P)…</translation>
    </message>
    <message>
        <source>Take the selected clips out of this project; their files stay (Delete)</source>
        <translation>将所选片段移出此项目；文件保留在原处（Delete）</translation>
    </message>
</context>
<context>
    <name>DatasetBulkCommands</name>
    <message>
        <source>Trigger Word</source>
        <translation>触发词</translation>
    </message>
    <message>
        <source>This project has no trigger word yet. Type one, a rare token such as “sks” that the model learns as the name of your subject:</source>
        <translation>此项目还没有触发词。请输入一个，例如“sks”这样的罕见词元，模型会将其学习为您的主体的名称：</translation>
    </message>
    <message>
        <source>Could Not Save</source>
        <translation>无法保存</translation>
    </message>
    <message>
        <source>Replaced text in 1 caption. Ctrl+Z undoes it.</source>
        <translation>已替换 1 条描述中的文本。按 Ctrl+Z 可撤销。</translation>
    </message>
    <message>
        <source>Replaced text in %1 captions. Ctrl+Z undoes it.</source>
        <translation>已替换 %1 条描述中的文本。按 Ctrl+Z 可撤销。</translation>
    </message>
    <message>
        <source>Added “%1” to 1 caption. Ctrl+Z undoes it.</source>
        <translation>已将“%1”添加到 1 条描述。按 Ctrl+Z 可撤销。</translation>
    </message>
    <message>
        <source>Added “%1” to %2 captions. Ctrl+Z undoes it.</source>
        <translation>已将“%1”添加到 %2 条描述。按 Ctrl+Z 可撤销。</translation>
    </message>
    <message>
        <source>Add Tags</source>
        <translation>添加标签</translation>
    </message>
    <message>
        <source>Tags to add to the selected clip, separated by commas:</source>
        <translation>要添加到所选片段的标签，用逗号分隔：</translation>
    </message>
    <message>
        <source>Tags to add to %1 clips, separated by commas:</source>
        <translation>要添加到 %1 个片段的标签，用逗号分隔：</translation>
    </message>
    <message>
        <source>Added the tags %1 (clips: %2).</source>
        <translation>已添加标签 %1（片段数：%2）。</translation>
    </message>
    <message>
        <source>Remove Tags</source>
        <translation>移除标签</translation>
    </message>
    <message>
        <source>Tags to remove from the selected clip, separated by commas:</source>
        <translation>要从所选片段移除的标签，用逗号分隔：</translation>
    </message>
    <message>
        <source>Tags to remove from %1 clips, separated by commas:</source>
        <translation>要从 %1 个片段移除的标签，用逗号分隔：</translation>
    </message>
    <message>
        <source>Removed the tags %1 (clips: %2).</source>
        <translation>已移除标签 %1（片段数：%2）。</translation>
    </message>
    <message>
        <source>Writing captions to .txt files (clips: %1)…</source>
        <translation>正在将描述写入 .txt 文件（片段数：%1）…</translation>
    </message>
    <message>
        <source>Caption files written: %1; already up to date: %2.</source>
        <translation>已写入描述文件：%1；已是最新：%2。</translation>
    </message>
    <message>
        <source>Some Captions Were Not Written</source>
        <translation>部分描述未写入</translation>
    </message>
    <message>
        <source>Exported a dataset for training (clips: %1).</source>
        <translation>已导出用于训练的数据集（片段数：%1）。</translation>
    </message>
</context>
<context>
    <name>DatasetExporter</name>
    <message>
        <source>“%1” has no caption and was left out: cogvideox-factory skips empty lines in prompt.txt, which would pair the captions after it with the wrong videos.</source>
        <translation>“%1”没有描述，已被排除：cogvideox-factory 会跳过 prompt.txt 中的空行，这会导致其后的描述与错误的视频配对。</translation>
    </message>
    <message>
        <source>“%1” has no caption and was left out. Write a caption, or export uncaptioned clips too.</source>
        <translation>“%1”没有描述，已被排除。请撰写描述，或选择同时导出无描述的片段。</translation>
    </message>
    <message>
        <source>“%1” is a still image, which cogvideox-factory&apos;s layout cannot hold. Export the manifest to train on images.</source>
        <translation>“%1”是静态图片，cogvideox-factory 的目录结构无法容纳图片。要用图片训练，请导出清单文件。</translation>
    </message>
    <message>
        <source>Clips left out by their status: %1.</source>
        <translation>因状态而被排除的片段：%1。</translation>
    </message>
    <message>
        <source>None of the chosen clips can be exported, so nothing was written. The list of skipped clips says why for each.</source>
        <translation>所选片段均无法导出，因此未写入任何内容。跳过的片段列表中说明了每个片段的原因。</translation>
    </message>
    <message>
        <source>Could not write “%1” (%2). Choose a folder you can write to, or free some disk space, then export again.</source>
        <translation>无法写入“%1”（%2）。请选择一个您有写入权限的文件夹，或释放一些磁盘空间，然后重新导出。</translation>
    </message>
    <message>
        <source>The folder of “%1” does not exist. Choose an existing folder.</source>
        <translation>“%1”所在的文件夹不存在。请选择一个已存在的文件夹。</translation>
    </message>
    <message>
        <source>Could not create the folder “%1”. Choose a location you can write to.</source>
        <translation>无法创建文件夹“%1”。请选择一个您有写入权限的位置。</translation>
    </message>
</context>
<context>
    <name>DatasetImporter</name>
    <message>
        <source>“%1” is listed more than once; it was imported once, with the caption of its first listing.</source>
        <translation>“%1”被列出了多次；它只导入了一次，使用的是第一次列出时的描述。</translation>
    </message>
    <message>
        <source>The trim %1 to %2 listed for “%3” does not fit the clip (frame count: %4), so the whole clip is used. Set the trim again in the clip&apos;s editor.</source>
        <translation>为“%3”列出的裁剪范围 %1 至 %2 超出了该片段（帧数：%4），因此将使用整个片段。请在片段编辑器中重新设置裁剪范围。</translation>
    </message>
    <message>
        <source>“%1” has the same content as “%2”, which is already in the project, so it was not imported again.</source>
        <translation>“%1”与项目中已有的“%2”内容相同，因此未重复导入。</translation>
    </message>
</context>
<context>
    <name>DatasetPage</name>
    <message>
        <source>Dataset</source>
        <translation>数据集</translation>
    </message>
    <message>
        <source>The clips and captions you train on</source>
        <translation>用于训练的视频片段及其描述</translation>
    </message>
    <message>
        <source>No clips in this project yet</source>
        <translation>此项目中还没有视频片段</translation>
    </message>
    <message>
        <source>Could Not Read the Clips</source>
        <translation>无法读取片段</translation>
    </message>
    <message>
        <source>Could Not Save the Change</source>
        <translation>无法保存更改</translation>
    </message>
    <message>
        <source>1 clip</source>
        <translation>1 个片段</translation>
    </message>
    <message>
        <source>%1 clips</source>
        <translation>%1 个片段</translation>
    </message>
    <message>
        <source>%1 of %2 clips shown</source>
        <translation>显示 %1 / %2 个片段</translation>
    </message>
    <message>
        <source>%1 selected</source>
        <translation>已选择 %1 个</translation>
    </message>
    <message>
        <source>Import a folder of video clips to start your dataset. Each clip then gets a caption, and the clips you accept become the training set. You can also drop files and folders here; a .txt file next to a clip is read as its caption.</source>
        <translation>导入一个视频片段文件夹，开始构建数据集。随后为每个片段撰写描述，您接受的片段将组成训练集。也可以将文件和文件夹拖放到这里；片段旁的同名 .txt 文件会被读取为其描述。</translation>
    </message>
    <message>
        <source>Import Folder…</source>
        <translation>导入文件夹…</translation>
    </message>
    <message>
        <source>Edit Captions</source>
        <translation>编辑描述</translation>
    </message>
    <message>
        <source>S&amp;ort:</source>
        <translation>排序(&amp;O)：</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>名称</translation>
    </message>
    <message>
        <source>Status</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>Rating</source>
        <translation>评分</translation>
    </message>
    <message>
        <source>Resolution</source>
        <translation>分辨率</translation>
    </message>
    <message>
        <source>Duration</source>
        <translation>时长</translation>
    </message>
    <message>
        <source>Frames</source>
        <translation>帧数</translation>
    </message>
    <message>
        <source>Bucket</source>
        <translation>分桶</translation>
    </message>
    <message>
        <source>Caption</source>
        <translation>描述</translation>
    </message>
    <message>
        <source>Reverse the order</source>
        <translation>倒序</translation>
    </message>
    <message>
        <source>Remove Clips</source>
        <translation>移除片段</translation>
    </message>
    <message>
        <source>Remove this clip from the project?</source>
        <translation>要从项目中移除此片段吗？</translation>
    </message>
    <message>
        <source>Remove these %1 clips from the project?</source>
        <translation>要从项目中移除这 %1 个片段吗？</translation>
    </message>
    <message>
        <source>The video files stay where they are. Edit ▸ Undo puts the clips back with their captions, ratings and tags; the history of their earlier caption edits is not kept.</source>
        <translation>视频文件保留在原处。编辑 ▸ 撤销可以恢复这些片段及其描述、评分和标签；它们此前的描述编辑历史不会保留。</translation>
    </message>
    <message>
        <source>Remove</source>
        <translation>移除</translation>
    </message>
    <message>
        <source>Removed 1 clip from the project.</source>
        <translation>已从项目中移除 1 个片段。</translation>
    </message>
    <message>
        <source>Removed %1 clips from the project.</source>
        <translation>已从项目中移除 %1 个片段。</translation>
    </message>
</context>
<context>
    <name>DatasetPathResolver</name>
    <message>
        <source>Line %1 of “%2” names the absolute path “%3”, outside the dataset&apos;s folder, so it was not imported. Move the file into the folder and name it relative to it, or tick “Allow files outside the dataset&apos;s folder” when you import again.</source>
        <translation>“%2”第 %1 行给出的是绝对路径“%3”，位于数据集文件夹之外，因此未导入。请将该文件移入此文件夹并使用相对路径，或在重新导入时勾选“允许数据集文件夹之外的文件”。</translation>
    </message>
    <message>
        <source>Line %1 of “%2” names “%3”, which leads out of the dataset&apos;s folder through “..”, so it was not imported. Move the file into the folder, or tick “Allow files outside the dataset&apos;s folder” when you import again.</source>
        <translation>“%2”第 %1 行给出的“%3”通过“..”指向数据集文件夹之外，因此未导入。请将该文件移入此文件夹，或在重新导入时勾选“允许数据集文件夹之外的文件”。</translation>
    </message>
    <message>
        <source>Line %1 of “%2” names “%3”, which a symbolic link leads out of the dataset&apos;s folder, so it was not imported. Copy the file into the folder, or tick “Allow files outside the dataset&apos;s folder” when you import again.</source>
        <translation>“%2”第 %1 行给出的“%3”经由符号链接指向数据集文件夹之外，因此未导入。请将该文件复制到此文件夹中，或在重新导入时勾选“允许数据集文件夹之外的文件”。</translation>
    </message>
</context>
<context>
    <name>DatasetPreferences</name>
    <message>
        <source>Could not save the dataset settings in “%1”: %2. Check that the project folder is writable and the disk is not full.</source>
        <translation>无法将数据集设置保存到“%1”：%2。请检查项目文件夹是否可写，以及磁盘是否已满。</translation>
    </message>
</context>
<context>
    <name>DemoClipWriter</name>
    <message>
        <source>Could not create the folder “%1”. Check that the project folder is writable and the disk is not full.</source>
        <translation>无法创建文件夹“%1”。请检查项目文件夹是否可写，以及磁盘是否已满。</translation>
    </message>
    <message>
        <source>Could not write the demo clip “%1”: %2</source>
        <translation>无法写入演示片段“%1”：%2</translation>
    </message>
    <message>
        <source>Could not write the caption file “%1”: %2. Check that the project folder is writable and the disk is not full.</source>
        <translation>无法写入描述文件“%1”：%2。请检查项目文件夹是否可写，以及磁盘是否已满。</translation>
    </message>
</context>
<context>
    <name>DemoProjectBuilder</name>
    <message>
        <source>Giving the demo model its VAE…</source>
        <translation>正在为演示模型设置 VAE…</translation>
    </message>
    <message>
        <source>Measuring the demo clips&apos; colours for the VAE: clip %1 of %2</source>
        <translation>正在为 VAE 测量演示片段的颜色：第 %1 个，共 %2 个</translation>
    </message>
    <message>
        <source>The engine finished the demo model&apos;s VAE, but “%1” was not written.</source>
        <translation>引擎已完成演示模型的 VAE，但没有写入“%1”。</translation>
    </message>
    <message>
        <source>The demo model has its VAE</source>
        <translation>演示模型的 VAE 已就绪</translation>
    </message>
    <message>
        <source>The engine could not give the demo model its VAE: %1 %2</source>
        <translation>引擎无法为演示模型设置 VAE：%1 %2</translation>
    </message>
    <message>
        <source>The engine “%1” was not found, and the demo project needs it to create its model. Check that tuneframe-engine is installed with the studio.</source>
        <translation>找不到引擎“%1”，而演示项目需要用它来创建模型。请检查 tuneframe-engine 是否已随工作室一同安装。</translation>
    </message>
    <message>
        <source>Writing the demo clips…</source>
        <translation>正在写入演示片段…</translation>
    </message>
    <message>
        <source>Wrote demo clip %1 of %2</source>
        <translation>已写入演示片段 %1/%2</translation>
    </message>
    <message>
        <source>The tiny model is already in place</source>
        <translation>微型模型已就绪</translation>
    </message>
    <message>
        <source>The folder “%1” exists but does not hold a complete model. Move or delete it, then create the demo project again.</source>
        <translation>文件夹“%1”已存在，但其中没有完整的模型。请移走或删除它，然后重新创建演示项目。</translation>
    </message>
    <message>
        <source>Could not create the folder “%1”. Check that the project folder is writable and the disk is not full.</source>
        <translation>无法创建文件夹“%1”。请检查项目文件夹是否可写，以及磁盘是否已满。</translation>
    </message>
    <message>
        <source>Creating the tiny model…</source>
        <translation>正在创建微型模型…</translation>
    </message>
    <message>
        <source>The engine stopped unexpectedly while creating the tiny model. Its last output:
%1</source>
        <translation>引擎在创建微型模型时意外停止。其最后输出：
%1</translation>
    </message>
    <message>
        <source>The engine could not create the tiny model (exit code %1). It said:
%2</source>
        <translation>引擎无法创建微型模型（退出代码 %1）。其输出：
%2</translation>
    </message>
    <message>
        <source>The engine “%1” could not be started: %2. Check that tuneframe-engine is installed with the studio and that you may run it.</source>
        <translation>无法启动引擎“%1”：%2。请检查 tuneframe-engine 是否已随工作室一同安装，以及您是否有权运行它。</translation>
    </message>
    <message>
        <source>The engine finished, but “%1” does not hold a complete model. It said:
%2</source>
        <translation>引擎已运行结束，但“%1”中没有完整的模型。其输出：
%2</translation>
    </message>
    <message>
        <source>Could not move the new model from “%1” to “%2”. Check that the project folder is writable.</source>
        <translation>无法将新模型从“%1”移动到“%2”。请检查项目文件夹是否可写。</translation>
    </message>
    <message>
        <source>Created the tiny model</source>
        <translation>已创建微型模型</translation>
    </message>
    <message>
        <source>(nothing)</source>
        <translation>（无）</translation>
    </message>
    <message>
        <source>The tiny Wan model is already in place</source>
        <translation>微型 Wan 模型已就位</translation>
    </message>
    <message>
        <source>Creating the tiny Wan model…</source>
        <translation>正在创建微型 Wan 模型…</translation>
    </message>
    <message>
        <source>Created the tiny Wan model</source>
        <translation>已创建微型 Wan 模型</translation>
    </message>
</context>
<context>
    <name>DemoProjectController</name>
    <message>
        <source>Demo project</source>
        <translation>演示项目</translation>
    </message>
    <message>
        <source>Importing demo clip %1 of %2</source>
        <translation>正在导入演示片段 %1/%2</translation>
    </message>
</context>
<context>
    <name>EngineCommand</name>
    <message>
        <source>The engine could not be started (%1): %2.</source>
        <translation>无法启动引擎（%1）：%2。</translation>
    </message>
    <message>
        <source>Build tuneframe-engine, or set TUNEFRAME_ENGINE to its path.</source>
        <translation>请构建 tuneframe-engine，或将 TUNEFRAME_ENGINE 设为其路径。</translation>
    </message>
    <message>
        <source>The engine stopped unexpectedly.</source>
        <translation>引擎意外停止。</translation>
    </message>
    <message>
        <source>The engine stopped with exit code %1.</source>
        <translation>引擎以退出码 %1 停止。</translation>
    </message>
</context>
<context>
    <name>EngineRun</name>
    <message>
        <source>The engine could not be started (%1): %2. Build tuneframe-engine, or set TUNEFRAME_ENGINE to its path.</source>
        <translation>无法启动引擎（%1）：%2。请构建 tuneframe-engine，或将 TUNEFRAME_ENGINE 设为其路径。</translation>
    </message>
    <message>
        <source>an event line longer than %1 bytes</source>
        <translation>一行事件超过 %1 字节</translation>
    </message>
    <message>
        <source>a line cut short, joined to the next event, which is kept</source>
        <translation>一行被截断，与下一个事件连在一起；该事件已保留</translation>
    </message>
    <message>
        <source>the engine&apos;s last line was cut short and is skipped</source>
        <translation>引擎写下的最后一行被截断，已跳过</translation>
    </message>
</context>
<context>
    <name>ExportDatasetDialog</name>
    <message>
        <source>Export Folder</source>
        <translation>导出文件夹</translation>
    </message>
    <message>
        <source>Manifest File</source>
        <translation>清单文件</translation>
    </message>
    <message>
        <source>JSON Lines (*.jsonl)</source>
        <translation>JSON Lines (*.jsonl)</translation>
    </message>
    <message>
        <source>Exporting… (clips: %1)</source>
        <translation>正在导出…（片段数：%1）</translation>
    </message>
    <message>
        <source>Cancelling after the current clip…</source>
        <translation>将在当前片段完成后取消…</translation>
    </message>
    <message>
        <source>Export cancelled. The files written so far are listed below; the dataset is incomplete.</source>
        <translation>导出已取消。下方列出了已写入的文件；数据集不完整。</translation>
    </message>
    <message>
        <source>Exported 1 clip to %1.</source>
        <translation>已将 1 个片段导出到 %1。</translation>
    </message>
    <message>
        <source>Exported %1 clips to %2.</source>
        <translation>已将 %1 个片段导出到 %2。</translation>
    </message>
    <message>
        <source>Trimmed clips cut into new files: %1.</source>
        <translation>按裁剪范围切分为新文件的片段：%1。</translation>
    </message>
    <message>
        <source>Left out (%1):</source>
        <translation>已排除（%1）：</translation>
    </message>
    <message>
        <source>Written:</source>
        <translation>已写入：</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Close</source>
        <translation>关闭</translation>
    </message>
    <message>
        <source>Export Dataset</source>
        <translation>导出数据集</translation>
    </message>
    <message>
        <source>Format:</source>
        <translation>格式：</translation>
    </message>
    <message>
        <source>&amp;Manifest (JSON Lines) for tuneframe-engine prepare</source>
        <translation>用于 tuneframe-engine prepare 的清单（JSON Lines）(&amp;M)</translation>
    </message>
    <message>
        <source>cogvideox-&amp;factory folder (prompt.txt, videos.txt)</source>
        <translation>cogvideox-factory 文件夹（prompt.txt、videos.txt）(&amp;F)</translation>
    </message>
    <message>
        <source>That layout has no trims: trimmed clips are cut into new files under videos/.</source>
        <translation>该目录结构不支持裁剪范围：裁剪过的片段会被切分为 videos/ 下的新文件。</translation>
    </message>
    <message>
        <source>&amp;Destination:</source>
        <translation>目标位置(&amp;D)：</translation>
    </message>
    <message>
        <source>&amp;Browse…</source>
        <translation>浏览(&amp;B)…</translation>
    </message>
    <message>
        <source>Clips:</source>
        <translation>片段：</translation>
    </message>
    <message>
        <source>The &amp;selected clips (%1)</source>
        <translation>所选片段（%1）(&amp;S)</translation>
    </message>
    <message>
        <source>All clips &amp;shown by the filter (%1)</source>
        <translation>筛选后显示的所有片段（%1）(&amp;S)</translation>
    </message>
    <message>
        <source>Include clips that still &amp;need review (rejected clips are always left out)</source>
        <translation>包括仍待审核的片段（已拒绝的片段始终会被排除）(&amp;N)</translation>
    </message>
    <message>
        <source>Include clips &amp;without a caption (manifest only)</source>
        <translation>包括无描述的片段（仅限清单）(&amp;W)</translation>
    </message>
    <message>
        <source>&amp;Export</source>
        <translation>导出(&amp;E)</translation>
    </message>
</context>
<context>
    <name>FactoryCommandImport</name>
    <message>
        <source>A quote (%1) is not closed.</source>
        <translation>引号（%1）没有闭合。</translation>
    </message>
    <message>
        <source>No training script (…/cogvideox_text_to_video_lora.py) was found in the command. Paste the whole accelerate launch line.</source>
        <translation>命令中没有找到训练脚本（…/cogvideox_text_to_video_lora.py）。请粘贴完整的 accelerate launch 命令行。</translation>
    </message>
    <message>
        <source>%1 → task and mode</source>
        <translation>%1 → 任务与模式</translation>
    </message>
    <message>
        <source>%1 (accelerate: choose the GPUs in Tuneframe instead)</source>
        <translation>%1（accelerate 参数：请改在 Tuneframe 中选择 GPU）</translation>
    </message>
    <message>
        <source>%1 (a shell variable: set the value in the form)</source>
        <translation>%1（shell 变量：请在表单中填写该值）</translation>
    </message>
    <message>
        <source>%1 → %2</source>
        <translation>%1 → %2</translation>
    </message>
    <message>
        <source>%1 → choose that model&apos;s local folder as the model folder</source>
        <translation>%1 → 请选择该模型的本地文件夹作为模型文件夹</translation>
    </message>
    <message>
        <source>--height_buckets, --width_buckets → %1</source>
        <translation>--height_buckets、--width_buckets → %1</translation>
    </message>
    <message>
        <source>--height_buckets %1 --width_buckets %2</source>
        <translation>--height_buckets %1 --width_buckets %2</translation>
    </message>
    <message numerus="yes">
        <source>--validation_prompt (%n prompt(s)) → validation.prompts</source>
        <translation>
            <numerusform>--validation_prompt（%n 条提示词）→ validation.prompts</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>--validation_images (%n image(s)) → validation.images</source>
        <translation>
            <numerusform>--validation_images（%n 张图片）→ validation.images</numerusform>
        </translation>
    </message>
    <message>
        <source>%1 → the clips to import</source>
        <translation>%1 → 要导入的片段</translation>
    </message>
    <message>
        <source>the factory&apos;s default optimizer (adam)</source>
        <translation>cogvideox-factory 的默认优化器（adam）</translation>
    </message>
    <message>
        <source>%1 → %2 = %3</source>
        <translation>%1 → %2 = %3</translation>
    </message>
    <message>
        <source>(its weight decay now shrinks the weights as AdamW does, instead of being added to the gradient as Adam does: Tuneframe&apos;s 8-bit and CPU-offloaded optimizers are AdamW)</source>
        <translation>（权重衰减现在像 AdamW 那样直接缩小权重，而不是像 Adam 那样加到梯度上：Tuneframe 的 8 位和 CPU 卸载优化器都是 AdamW）</translation>
    </message>
    <message>
        <source>(the CPU-offloaded optimizer keeps its state in 32 bits)</source>
        <translation>（卸载到 CPU 的优化器以 32 位保存其状态）</translation>
    </message>
    <message>
        <source>--use_8bit (the factory allows 8-bit states only with adam and adamw)</source>
        <translation>--use_8bit（cogvideox-factory 只允许 adam 和 adamw 使用 8 位状态）</translation>
    </message>
    <message>
        <source>--use_cpu_offload_optimizer (Tuneframe offloads only adam and adamw to the CPU)</source>
        <translation>--use_cpu_offload_optimizer（Tuneframe 只能将 adam 和 adamw 卸载到 CPU）</translation>
    </message>
</context>
<context>
    <name>FactoryDatasetSource</name>
    <message>
        <source>The command names no --data_root, so Tuneframe cannot tell where the clips are. Add --data_root with the dataset folder.</source>
        <translation>命令中没有 --data_root，Tuneframe 无法知道片段在哪里。请加上 --data_root 并指定数据集文件夹。</translation>
    </message>
    <message>
        <source>The dataset folder “%1” (--data_root) does not exist. Copy the dataset to this computer and correct the path in the command.</source>
        <translation>数据集文件夹“%1”（--data_root）不存在。请将数据集复制到这台计算机，并改正命令中的路径。</translation>
    </message>
    <message>
        <source>%1 Without --dataset_file, --caption_column and --video_column name line files in the --data_root folder.</source>
        <translation>%1 没有 --dataset_file 时，--caption_column 和 --video_column 指的是 --data_root 文件夹中每行一项的文本文件。</translation>
    </message>
    <message>
        <source>“%1” lists %2 videos but “%3” holds %4 captions, so Tuneframe cannot tell which caption belongs to which video and imported nothing from them. Give both files one line per clip, in the same order, then import the command again.</source>
        <translation>“%1”列出了 %2 个视频，而“%3”中有 %4 条描述，Tuneframe 无法判断哪条描述属于哪个视频，因此没有从中导入任何内容。请让两个文件每个片段各占一行、顺序一致，然后重新导入该命令。</translation>
    </message>
    <message>
        <source>The CSV file “%1” has no column “%2” (its header reads: %3). Correct --video_column and --caption_column in the command to the file&apos;s column names.</source>
        <translation>CSV 文件“%1”中没有“%2”列（其表头为：%3）。请将命令中的 --video_column 和 --caption_column 改为该文件的列名。</translation>
    </message>
    <message>
        <source>Line %1 of “%2” names no file, so it was not imported.</source>
        <translation>“%2”的第 %1 行没有指明文件，因此未导入。</translation>
    </message>
</context>
<context>
    <name>FactoryImportDialog</name>
    <message>
        <source>Import a cogvideox-factory Command</source>
        <translation>导入 cogvideox-factory 命令</translation>
    </message>
    <message>
        <source>Paste the accelerate launch line of a cogvideox-factory training script (train_text_to_video_lora.sh and the like). Its settings replace the form&apos;s; the model folder and the dataset stay as they are.</source>
        <translation>粘贴 cogvideox-factory 训练脚本（如 train_text_to_video_lora.sh）中的 accelerate launch 命令行。其中的设置会替换表单中的设置；模型文件夹和数据集保持不变。</translation>
    </message>
    <message>
        <source>Understood</source>
        <translation>已识别</translation>
    </message>
    <message>
        <source>Not understood (left out)</source>
        <translation>未识别（已忽略）</translation>
    </message>
    <message>
        <source>Apply to the Form</source>
        <translation>应用到表单</translation>
    </message>
</context>
<context>
    <name>FactoryLayoutSource</name>
    <message>
        <source>“%1” lists %2 videos but “%3” holds %4 captions, so Tuneframe cannot tell which caption belongs to which video and imported nothing from this folder. Give both files one line per clip, in the same order, then import the folder again.</source>
        <translation>“%1”列出了 %2 个视频，但“%3”中有 %4 条描述，Tuneframe 无法判断哪条描述属于哪个视频，因此未从此文件夹导入任何内容。请让两个文件都按相同顺序、每行对应一个片段，然后重新导入该文件夹。</translation>
    </message>
    <message>
        <source>Line %1 of “%2” is empty, so the caption on line %1 of “%3” was not imported.</source>
        <translation>“%2”的第 %1 行为空，因此未导入“%3”第 %1 行的描述。</translation>
    </message>
</context>
<context>
    <name>FolderImportSource</name>
    <message>
        <source>%1 and %2 more</source>
        <translation>%1 以及另外 %2 个</translation>
    </message>
    <message>
        <source>The folder “%1” does not exist. Choose an existing folder.</source>
        <translation>文件夹“%1”不存在。请选择一个已存在的文件夹。</translation>
    </message>
    <message>
        <source>Text files in “%1” that have no video or image of the same name were not used as captions: %2.</source>
        <translation>“%1”中以下文本文件没有同名的视频或图片，因此未用作描述：%2。</translation>
    </message>
    <message>
        <source>Files in “%1” that are not videos or images by their extension were not imported: %2. Import them as single files to try them anyway.</source>
        <translation>“%1”中以下文件按扩展名判断不是视频或图片，因此未导入：%2。如仍想尝试，请将它们作为单个文件导入。</translation>
    </message>
    <message>
        <source>The folder “%1” holds no videos or images.</source>
        <translation>文件夹“%1”中没有视频或图片。</translation>
    </message>
    <message>
        <source>“%1” is a text file with no video or image of the same name among the dropped files, so it was not imported. Drop it together with its clip.</source>
        <translation>“%1”是文本文件，拖放的文件中没有与其同名的视频或图片，因此未导入。请将它与对应的片段一起拖放。</translation>
    </message>
    <message>
        <source>The caption of “%1” was not imported: %2</source>
        <translation>“%1”的描述未导入：%2</translation>
    </message>
    <message>
        <source>Files in “%1” that are not regular files (devices, named pipes or sockets) were not read: %2.</source>
        <translation>“%1”中以下不是普通文件的项目（设备、命名管道或套接字）未被读取：%2。</translation>
    </message>
</context>
<context>
    <name>FrameDecodeWorker</name>
    <message>
        <source>No clip is open.</source>
        <translation>没有打开的片段。</translation>
    </message>
    <message>
        <source>Frame %1 of “%2” could not be decoded.</source>
        <translation>无法解码“%2”的第 %1 帧。</translation>
    </message>
</context>
<context>
    <name>GalleryPage</name>
    <message>
        <source>Step %1 · step %2</source>
        <translation>第 %1 步 · 第 %2 步</translation>
    </message>
    <message>
        <source>Gallery</source>
        <translation>画廊</translation>
    </message>
    <message>
        <source>Validation videos from your training runs</source>
        <translation>训练运行生成的验证视频</translation>
    </message>
    <message>
        <source>No validation videos yet</source>
        <translation>还没有验证视频</translation>
    </message>
    <message>
        <source>Validation videos will appear here during training: each time a run checks its progress, the videos it generates from your prompts are added to this page.</source>
        <translation>训练期间验证视频会显示在这里：每当训练运行检查进度时，根据您的提示词生成的视频都会添加到此页面。</translation>
    </message>
    <message>
        <source>Left: step %1, “%2”. Right: step %3, “%4”.</source>
        <translation>左：第 %1 步，“%2”。右：第 %3 步，“%4”。</translation>
    </message>
    <message>
        <source>Run</source>
        <translation>运行</translation>
    </message>
    <message>
        <source>Beside</source>
        <translation>并排对比</translation>
    </message>
    <message>
        <source>Side by Side</source>
        <translation>并排播放</translation>
    </message>
    <message>
        <source>Select two videos (Ctrl+click) to play them next to each other, frame for frame.</source>
        <translation>选择两个视频（Ctrl+单击），逐帧同步并排播放。</translation>
    </message>
    <message>
        <source>No second run</source>
        <translation>不选第二个运行</translation>
    </message>
    <message>
        <source>%1 · prompt %2</source>
        <translation>%1 · 提示词 %2</translation>
    </message>
    <message>
        <source>Step %1</source>
        <translation>第 %1 步</translation>
    </message>
    <message>
        <source>▶ %1 s to render</source>
        <translation>▶ 渲染用时 %1 秒</translation>
    </message>
    <message>
        <source>Missing: %1</source>
        <translation>缺失：%1</translation>
    </message>
    <message>
        <source>Step %1, “%2”.</source>
        <translation>第 %1 步，“%2”。</translation>
    </message>
    <message>
        <source>Select two videos (Ctrl+click) to compare them.</source>
        <translation>选择两个视频（Ctrl+单击）进行对比。</translation>
    </message>
    <message>
        <source>Prompt %1
%2</source>
        <translation>提示词 %1
%2</translation>
    </message>
</context>
<context>
    <name>GpuInventory</name>
    <message>
        <source>No NVIDIA driver was found (%1 could not be loaded), so training runs on the CPU.</source>
        <translation>未找到 NVIDIA 驱动（无法加载 %1），训练将在 CPU 上运行。</translation>
    </message>
    <message>
        <source>%1 is not a usable NVML library; update the NVIDIA driver.</source>
        <translation>%1 不是可用的 NVML 库；请更新 NVIDIA 驱动。</translation>
    </message>
    <message>
        <source>The NVIDIA driver did not start (NVML error %1); training runs on the CPU.</source>
        <translation>NVIDIA 驱动未能启动（NVML 错误 %1）；训练将在 CPU 上运行。</translation>
    </message>
    <message>
        <source>The NVIDIA driver reports no GPUs, so training runs on the CPU.</source>
        <translation>NVIDIA 驱动未报告任何 GPU，训练将在 CPU 上运行。</translation>
    </message>
</context>
<context>
    <name>HubDownloadDialog</name>
    <message>
        <source>Download from Hugging Face</source>
        <translation>从 Hugging Face 下载</translation>
    </message>
    <message>
        <source>Downloads a CogVideoX pipeline (model_index.json and the scheduler, tokenizer, text_encoder, transformer and vae folders) from %1 into the Hugging Face cache, where huggingface-cli and other tools find it too. An interrupted download resumes where it stopped.</source>
        <translation>从 %1 下载 CogVideoX 管线（model_index.json 以及 scheduler、tokenizer、text_encoder、transformer 和 vae 文件夹）到 Hugging Face 缓存，huggingface-cli 等工具也能在那里找到它。中断的下载会从停下的地方继续。</translation>
    </message>
    <message>
        <source>Repository</source>
        <translation>仓库</translation>
    </message>
    <message>
        <source>Revision</source>
        <translation>版本</translation>
    </message>
    <message>
        <source>Access token</source>
        <translation>访问令牌</translation>
    </message>
    <message>
        <source>Saved in</source>
        <translation>保存位置</translation>
    </message>
    <message>
        <source>main, a tag or a commit hash</source>
        <translation>main、标签或提交哈希</translation>
    </message>
    <message>
        <source>Only for gated or private repositories</source>
        <translation>仅用于受限或私有仓库</translation>
    </message>
    <message>
        <source>Filled from HF_TOKEN or huggingface-cli login when set. Create one at huggingface.co/settings/tokens; it is sent to %1 only and never saved.</source>
        <translation>已设置时取自 HF_TOKEN 或 huggingface-cli login。可在 huggingface.co/settings/tokens 创建；令牌只发送给 %1，且从不保存。</translation>
    </message>
    <message>
        <source>File</source>
        <translation>文件</translation>
    </message>
    <message>
        <source>Size</source>
        <translation>大小</translation>
    </message>
    <message>
        <source>Progress</source>
        <translation>进度</translation>
    </message>
    <message>
        <source>Resume</source>
        <translation>继续下载</translation>
    </message>
    <message>
        <source>Download</source>
        <translation>下载</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Use this model</source>
        <translation>使用此模型</translation>
    </message>
    <message>
        <source>Close</source>
        <translation>关闭</translation>
    </message>
    <message>
        <source>Asking %1 for the files of %2…</source>
        <translation>正在向 %1 查询 %2 的文件…</translation>
    </message>
    <message>
        <source>Waiting</source>
        <translation>等待中</translation>
    </message>
    <message numerus="yes">
        <source>Downloading %n file(s)…</source>
        <translation>
            <numerusform>正在下载 %n 个文件…</numerusform>
        </translation>
    </message>
    <message>
        <source>%1 %</source>
        <translation>%1%</translation>
    </message>
    <message>
        <source>Done</source>
        <translation>完成</translation>
    </message>
    <message>
        <source>%1 of %2</source>
        <translation>%1 / %2</translation>
    </message>
    <message>
        <source>Downloaded to %1.</source>
        <translation>已下载到 %1。</translation>
    </message>
    <message>
        <source>Cancelled. Partial files are kept; Resume continues where the download stopped.</source>
        <translation>已取消。未完成的文件已保留；“继续下载”会从停下的地方接着下载。</translation>
    </message>
    <message>
        <source>Downloads a CogVideoX or Wan pipeline (model_index.json and the folders of its scheduler, tokenizer, text encoder, transformers, VAE and image encoder) from %1 into the Hugging Face cache, where huggingface-cli and other tools find it too. An interrupted download resumes where it stopped.</source>
        <translation>从 %1 下载 CogVideoX 或 Wan 管线（model_index.json 以及调度器、分词器、文本编码器、Transformer、VAE 和图像编码器的文件夹）到 Hugging Face 缓存，huggingface-cli 和其他工具也能在那里找到它。中断的下载会从停止处继续。</translation>
    </message>
</context>
<context>
    <name>HubDownloader</name>
    <message>
        <source>&quot;%1&quot; is not a Hub repository id: write it as owner/name, for example THUDM/CogVideoX-2b.</source>
        <translation>“%1”不是 Hub 仓库 ID：请写成 所有者/名称，例如 THUDM/CogVideoX-2b。</translation>
    </message>
    <message>
        <source>&quot;%1&quot; is not a revision: give a branch, a tag or a commit hash, for example main.</source>
        <translation>“%1”不是有效版本：请给出分支、标签或提交哈希，例如 main。</translation>
    </message>
    <message>
        <source>%1 from the Hub is larger than the %2 the Hub lists for it; the partial file was removed. Download again; if this happens again, a proxy may be changing the file.</source>
        <translation>从 Hub 收到的 %1 大于 Hub 列出的 %2；未完成的文件已删除。请重新下载；如果再次发生，可能是代理在改动该文件。</translation>
    </message>
    <message>
        <source>Could not write %1: %2. Free some disk space, then download again to resume.</source>
        <translation>无法写入 %1：%2。请释放一些磁盘空间，然后重新下载以继续。</translation>
    </message>
    <message>
        <source>%1 at %2</source>
        <translation>%1（%2）</translation>
    </message>
    <message>
        <source>The Hub redirected %1 too often or to a bad address. Try again later.</source>
        <translation>Hub 对 %1 的重定向次数过多或指向无效地址。请稍后再试。</translation>
    </message>
    <message>
        <source>The Hub has no %1 that you may see (HTTP %2): check the repository id and revision, and for a private repository enter an access token.</source>
        <translation>Hub 上没有你可访问的 %1（HTTP %2）：请检查仓库 ID 和版本；如果是私有仓库，请填写访问令牌。</translation>
    </message>
    <message>
        <source>The Hub has no %1 (HTTP 404): check the repository id and revision.</source>
        <translation>Hub 上没有 %1（HTTP 404）：请检查仓库 ID 和版本。</translation>
    </message>
    <message>
        <source>%1 stalled: no data for %2 seconds. Check the connection, then download again to resume.</source>
        <translation>%1 停滞：%2 秒内没有收到数据。请检查网络连接，然后重新下载以继续。</translation>
    </message>
    <message>
        <source>Downloading %1 from %2 failed: %3. %4 of %5 are kept and the next download resumes from there: check the connection (or HF_ENDPOINT), then download again.</source>
        <translation>从 %2 下载 %1 失败：%3。已保留 %4（共 %5），下次下载会从那里继续：请检查网络连接（或 HF_ENDPOINT），然后重新下载。</translation>
    </message>
    <message>
        <source>Downloading %1 from %2 failed: %3. Check the connection (or HF_ENDPOINT), then download again.</source>
        <translation>从 %2 下载 %1 失败：%3。请检查网络连接（或 HF_ENDPOINT），然后重新下载。</translation>
    </message>
    <message>
        <source>The Hub refused %1 (HTTP %2): the repository is gated or private. Accept its terms on its page at huggingface.co while signed in, then enter an access token from huggingface.co/settings/tokens and download again.</source>
        <translation>Hub 拒绝了 %1（HTTP %2）：该仓库受限或为私有。请登录 huggingface.co 并在其页面上接受条款，然后填写来自 huggingface.co/settings/tokens 的访问令牌并重新下载。</translation>
    </message>
    <message>
        <source>The Hub refused the access token for %1 (HTTP %2). Check that the token is valid and that its account has accepted the repository&apos;s terms on huggingface.co.</source>
        <translation>Hub 拒绝了用于 %1 的访问令牌（HTTP %2）。请确认令牌有效，且其账户已在 huggingface.co 上接受该仓库的条款。</translation>
    </message>
    <message>
        <source>%1 at %2 has no model_index.json, so it is not a diffusers pipeline. Choose a CogVideoX pipeline repository such as THUDM/CogVideoX-2b.</source>
        <translation>%1（%2）没有 model_index.json，因此不是 diffusers 管线。请选择 CogVideoX 管线仓库，例如 THUDM/CogVideoX-2b。</translation>
    </message>
    <message>
        <source>Could not create the folder %1. Check that the Hugging Face cache is writable (or set HF_HUB_CACHE), then download again.</source>
        <translation>无法创建文件夹 %1。请确认 Hugging Face 缓存可写（或设置 HF_HUB_CACHE），然后重新下载。</translation>
    </message>
    <message>
        <source>Could not write %1: %2. Check that the Hugging Face cache is writable, then download again.</source>
        <translation>无法写入 %1：%2。请确认 Hugging Face 缓存可写，然后重新下载。</translation>
    </message>
    <message>
        <source>Could not read %1 back. Delete it, then download again.</source>
        <translation>无法读回 %1。请删除它，然后重新下载。</translation>
    </message>
    <message>
        <source>%1 came out %2 instead of the %3 the Hub lists for it; the partial file was removed. Download again; if this happens again, a proxy may be changing the file.</source>
        <translation>%1 下载后为 %2，而不是 Hub 列出的 %3；未完成的文件已删除。请重新下载；如果再次发生，可能是代理在改动该文件。</translation>
    </message>
    <message>
        <source>%1 does not match its %2 checksum from the Hub; the download was removed. Download again; if this happens again, a proxy may be changing the file.</source>
        <translation>%1 与 Hub 提供的 %2 校验和不符；下载内容已删除。请重新下载；如果再次发生，可能是代理在改动该文件。</translation>
    </message>
    <message>
        <source>Could not move %1 into place. Check that the Hugging Face cache is writable, then download again.</source>
        <translation>无法将 %1 移到最终位置。请确认 Hugging Face 缓存可写，然后重新下载。</translation>
    </message>
    <message>
        <source>Could not link %1 into %2. Check that the Hugging Face cache is writable and on a file system with symbolic links, then download again.</source>
        <translation>无法将 %1 链接到 %2。请确认 Hugging Face 缓存可写且所在文件系统支持符号链接，然后重新下载。</translation>
    </message>
    <message>
        <source>&quot;%1&quot; is not a Hub repository id: write it as owner/name, for example Wan-AI/Wan2.1-T2V-1.3B-Diffusers.</source>
        <translation>&quot;%1&quot; 不是 Hub 仓库 ID：请写成 所有者/名称，例如 Wan-AI/Wan2.1-T2V-1.3B-Diffusers。</translation>
    </message>
    <message>
        <source>%1 at %2 has no model_index.json, so it is not a diffusers pipeline. Choose a CogVideoX or Wan pipeline repository such as THUDM/CogVideoX-2b or Wan-AI/Wan2.1-T2V-1.3B-Diffusers.</source>
        <translation>%1 在 %2 中没有 model_index.json，因此不是 diffusers 管线。请选择 CogVideoX 或 Wan 管线仓库，例如 THUDM/CogVideoX-2b 或 Wan-AI/Wan2.1-T2V-1.3B-Diffusers。</translation>
    </message>
</context>
<context>
    <name>HubRepoListing</name>
    <message>
        <source>The Hub&apos;s file list for %1 is not usable (%2). Check the endpoint (HF_ENDPOINT) and try again later.</source>
        <translation>%1 在 Hub 上的文件列表无法使用（%2）。请检查端点（HF_ENDPOINT），稍后再试。</translation>
    </message>
    <message>
        <source>no commit hash</source>
        <translation>没有提交哈希</translation>
    </message>
    <message>
        <source>bad file name &quot;%1&quot;</source>
        <translation>文件名“%1”无效</translation>
    </message>
    <message>
        <source>no size for %1</source>
        <translation>%1 没有大小</translation>
    </message>
    <message>
        <source>no checksum for %1</source>
        <translation>%1 没有校验和</translation>
    </message>
</context>
<context>
    <name>HuggingFaceCache</name>
    <message>
        <source>%1 (%2)</source>
        <translation>%1（%2）</translation>
    </message>
</context>
<context>
    <name>ImportFileDialog</name>
    <message>
        <source>Allow files outside the dataset&apos;s folder (for this import only)</source>
        <translation>允许数据集文件夹之外的文件（仅限本次导入）</translation>
    </message>
    <message>
        <source>Lets videos.txt, CSV and JSON Lines files and manifests in this import name clips outside their own folder: absolute paths, “..” and symbolic links that lead out. Tick it only for dataset files you trust.</source>
        <translation>允许本次导入中的 videos.txt、CSV、JSON Lines 文件和清单引用其所在文件夹之外的片段：绝对路径、“..”以及指向外部的符号链接。请仅对您信任的数据集文件勾选此项。</translation>
    </message>
</context>
<context>
    <name>ImportReport</name>
    <message>
        <source>added: %1</source>
        <translation>已添加：%1</translation>
    </message>
    <message>
        <source>flagged with a problem: %1</source>
        <translation>标记为有问题：%1</translation>
    </message>
    <message>
        <source>captions to check: %1</source>
        <translation>待检查的描述：%1</translation>
    </message>
    <message>
        <source>updated: %1</source>
        <translation>已更新：%1</translation>
    </message>
    <message>
        <source>already in the project: %1</source>
        <translation>已在项目中：%1</translation>
    </message>
    <message>
        <source>duplicates skipped: %1</source>
        <translation>已跳过重复项：%1</translation>
    </message>
    <message>
        <source>Import cancelled after %1 of %2 files (%3).</source>
        <translation>导入在处理了 %2 个文件中的 %1 个后取消（%3）。</translation>
    </message>
    <message>
        <source>Import finished (%1).</source>
        <translation>导入完成（%1）。</translation>
    </message>
</context>
<context>
    <name>ImportReportDialog</name>
    <message>
        <source>Every file was imported without a problem.</source>
        <translation>所有文件均已导入，没有出现问题。</translation>
    </message>
    <message>
        <source>Import Report</source>
        <translation>导入报告</translation>
    </message>
    <message>
        <source>Show the Flagged Clip</source>
        <translation>显示被标记的片段</translation>
    </message>
    <message>
        <source>Show the %1 Flagged Clips</source>
        <translation>显示 %1 个被标记的片段</translation>
    </message>
    <message>
        <source>Close</source>
        <translation>关闭</translation>
    </message>
</context>
<context>
    <name>JobPresets</name>
    <message>
        <source>%1 cannot be read: %2</source>
        <translation>无法读取 %1：%2</translation>
    </message>
    <message>
        <source>%1 is not a JSON object (%2 at byte %3). Fix the file or remove it.</source>
        <translation>%1 不是 JSON 对象（第 %3 字节处：%2）。请修正或删除该文件。</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1：%2</translation>
    </message>
    <message>
        <source>%1 %2</source>
        <translation>%1 %2</translation>
    </message>
    <message>
        <source>Give the preset a name.</source>
        <translation>请为预设命名。</translation>
    </message>
    <message>
        <source>Saved from “%1”.</source>
        <translation>由“%1”保存。</translation>
    </message>
    <message>
        <source>The preset could not be saved to %1: %2. Check that the folder is writable and the disk has space.</source>
        <translation>无法将预设保存到 %1：%2。请检查文件夹是否可写、磁盘是否有空间。</translation>
    </message>
    <message>
        <source>“%1” comes with Tuneframe and cannot be deleted.</source>
        <translation>“%1”是 Tuneframe 自带的预设，不能删除。</translation>
    </message>
    <message>
        <source>%1 could not be deleted. Check the folder&apos;s permissions.</source>
        <translation>无法删除 %1。请检查文件夹权限。</translation>
    </message>
    <message>
        <source>en</source>
        <comment>the language of the studio&apos;s translation: zh_CN in Simplified Chinese (presets carry name_zh_CN)</comment>
        <translation>zh_CN</translation>
    </message>
</context>
<context>
    <name>LaunchPlan</name>
    <message>
        <source>%1 is not a launch plan. It should read {&quot;gpus&quot;: [0, 1]} or {&quot;cpu_ranks&quot;: 2}, with &quot;machines&quot;, &quot;master_addr&quot; and &quot;master_port&quot; for several machines; delete it to train with one process.</source>
        <translation>%1 不是有效的启动计划。其内容应为 {&quot;gpus&quot;: [0, 1]} 或 {&quot;cpu_ranks&quot;: 2}，多台机器时还需 &quot;machines&quot;、&quot;master_addr&quot; 和 &quot;master_port&quot;；删除该文件即以单进程训练。</translation>
    </message>
    <message>
        <source>%1 could not be written: %2</source>
        <translation>无法写入 %1：%2</translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <source>&lt;b&gt;%1&lt;/b&gt; is preparing its clips. Its engine then trains it to its end, and the studio follows it again when you open this project.</source>
        <translation>&lt;b&gt;%1&lt;/b&gt; 正在准备片段。之后引擎会把它训练到结束，再次打开此项目时工作室会重新跟踪它。</translation>
    </message>
    <message>
        <source>&lt;b&gt;%1&lt;/b&gt; is stopping; its engine finishes that without the studio.</source>
        <translation>&lt;b&gt;%1&lt;/b&gt; 正在停止；引擎会在没有工作室的情况下完成停止。</translation>
    </message>
    <message>
        <source>&lt;b&gt;%1&lt;/b&gt; is paused at step %2; its engine keeps the model in memory until you open this project again and resume or stop it.</source>
        <translation>&lt;b&gt;%1&lt;/b&gt; 已在第 %2 步暂停；在你再次打开此项目并继续或停止它之前，引擎会一直把模型留在内存中。</translation>
    </message>
    <message>
        <source>&lt;b&gt;%1&lt;/b&gt; is training (step %2 of %3). It goes on, and the studio follows it again when you open this project.</source>
        <translation>&lt;b&gt;%1&lt;/b&gt; 正在训练（第 %2 步，共 %3 步）。训练会继续，再次打开此项目时工作室会重新跟踪它。</translation>
    </message>
    <message>
        <source>&lt;b&gt;%1&lt;/b&gt; is training. It goes on, and the studio follows it again when you open this project.</source>
        <translation>&lt;b&gt;%1&lt;/b&gt; 正在训练。训练会继续，再次打开此项目时工作室会重新跟踪它。</translation>
    </message>
    <message>
        <source>&lt;p&gt;Closing the studio does not stop its engines:&lt;/p&gt;&lt;ul&gt;&lt;li&gt;%1&lt;/li&gt;&lt;/ul&gt;</source>
        <translation>&lt;p&gt;关闭工作室不会停止它的引擎：&lt;/p&gt;&lt;ul&gt;&lt;li&gt;%1&lt;/li&gt;&lt;/ul&gt;</translation>
    </message>
    <message>
        <source>Training Is Still Running</source>
        <translation>训练仍在进行</translation>
    </message>
    <message>
        <source>Close Studio</source>
        <translation>关闭工作室</translation>
    </message>
    <message>
        <source>Keep Open</source>
        <translation>保持打开</translation>
    </message>
    <message>
        <source>The queue goes on without the studio: its engine starts the next run when one ends. Queued: %1.</source>
        <translation>队列在工作室关闭后继续：一个运行结束时，引擎会开始下一个。排队中：%1。</translation>
    </message>
    <message>
        <source>The studio now runs %1.</source>
        <translation>工作室现在使用 %1。</translation>
    </message>
    <message>
        <source>&amp;Run</source>
        <translation>运行(&amp;R)</translation>
    </message>
    <message>
        <source>&amp;Preferences…</source>
        <translation>偏好设置(&amp;P)…</translation>
    </message>
    <message>
        <source>&amp;Keyboard Shortcuts</source>
        <translation>键盘快捷键(&amp;K)</translation>
    </message>
    <message>
        <source>Settings Were Reset</source>
        <translation>设置已重置</translation>
    </message>
    <message>
        <source>Could Not Open Project</source>
        <translation>无法打开项目</translation>
    </message>
    <message>
        <source>Open Project Folder</source>
        <translation>打开项目文件夹</translation>
    </message>
    <message>
        <source>About Tuneframe</source>
        <translation>关于 Tuneframe</translation>
    </message>
    <message>
        <source>&lt;h3&gt;Tuneframe %1&lt;/h3&gt;&lt;p&gt;A desktop studio for building video datasets and fine-tuning video diffusion models on them.&lt;/p&gt;&lt;p&gt;Training runs in a separate engine process, so a crash or an out-of-memory error in training never takes your project with it.&lt;/p&gt;&lt;p&gt;Built with Qt %2.&lt;/p&gt;</source>
        <translation>&lt;h3&gt;Tuneframe %1&lt;/h3&gt;&lt;p&gt;用于构建视频数据集并在其上微调视频扩散模型的桌面工作室。&lt;/p&gt;&lt;p&gt;训练在独立的引擎进程中运行，因此训练中的崩溃或显存不足错误绝不会连累您的项目。&lt;/p&gt;&lt;p&gt;基于 Qt %2 构建。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation>文件(&amp;F)</translation>
    </message>
    <message>
        <source>&amp;New Project…</source>
        <translation>新建项目(&amp;N)…</translation>
    </message>
    <message>
        <source>&amp;Open Project…</source>
        <translation>打开项目(&amp;O)…</translation>
    </message>
    <message>
        <source>Open &amp;Recent</source>
        <translation>最近打开(&amp;R)</translation>
    </message>
    <message>
        <source>&amp;Clear Menu</source>
        <translation>清除菜单(&amp;C)</translation>
    </message>
    <message>
        <source>No Recent Projects</source>
        <translation>没有最近的项目</translation>
    </message>
    <message>
        <source>&amp;Close Project</source>
        <translation>关闭项目(&amp;C)</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>退出(&amp;Q)</translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation>视图(&amp;V)</translation>
    </message>
    <message>
        <source>&amp;Dataset</source>
        <translation>数据集(&amp;D)</translation>
    </message>
    <message>
        <source>&amp;Train</source>
        <translation>训练(&amp;T)</translation>
    </message>
    <message>
        <source>&amp;Gallery</source>
        <translation>画廊(&amp;G)</translation>
    </message>
    <message>
        <source>T&amp;heme</source>
        <translation>主题(&amp;H)</translation>
    </message>
    <message>
        <source>&amp;System</source>
        <translation>跟随系统(&amp;S)</translation>
    </message>
    <message>
        <source>&amp;Light</source>
        <translation>浅色(&amp;L)</translation>
    </message>
    <message>
        <source>&amp;Dark</source>
        <translation>深色(&amp;D)</translation>
    </message>
    <message>
        <source>&amp;Language</source>
        <translation>语言(&amp;L)</translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation>帮助(&amp;H)</translation>
    </message>
    <message>
        <source>&amp;About Tuneframe</source>
        <translation>关于 Tuneframe(&amp;A)</translation>
    </message>
    <message>
        <source>Dataset</source>
        <translation>数据集</translation>
    </message>
    <message>
        <source>Train</source>
        <translation>训练</translation>
    </message>
    <message>
        <source>Gallery</source>
        <translation>画廊</translation>
    </message>
    <message>
        <source>Project: %1 — %2</source>
        <translation>项目：%1 — %2</translation>
    </message>
    <message>
        <source>No project open</source>
        <translation>未打开项目</translation>
    </message>
    <message>
        <source>Demo project: %1</source>
        <translation>演示项目：%1</translation>
    </message>
    <message>
        <source>The demo project is ready: captioned clips to try every part of the studio on, and a tiny model.</source>
        <translation>演示项目已就绪：其中包含已写好描述的片段，可用来试用工作室的各项功能，另有一个微型模型。</translation>
    </message>
    <message>
        <source>Could Not Build the Demo Project</source>
        <translation>无法构建演示项目</translation>
    </message>
    <message>
        <source>Could Not Open the Demo Project</source>
        <translation>无法打开演示项目</translation>
    </message>
    <message>
        <source>Preparing the demo project…</source>
        <translation>正在准备演示项目…</translation>
    </message>
    <message>
        <source>Open &amp;Demo Project</source>
        <translation>打开演示项目(&amp;D)</translation>
    </message>
    <message>
        <source>&amp;Edit</source>
        <translation>编辑(&amp;E)</translation>
    </message>
    <message>
        <source>Data&amp;set</source>
        <translation>数据集(&amp;S)</translation>
    </message>
    <message>
        <source>Sa&amp;mple</source>
        <translation>采样(&amp;M)</translation>
    </message>
    <message>
        <source>Sample</source>
        <translation>采样</translation>
    </message>
    <message>
        <source>The clips in %1 (--data_root) were not imported: another import is running. Import the command again when it has finished.</source>
        <translation>%1（--data_root）中的片段未导入：另一个导入正在进行。请在它完成后重新导入该命令。</translation>
    </message>
    <message numerus="yes">
        <source>%n of these clips are no longer in the project.</source>
        <translation>
            <numerusform>其中 %n 个片段已不在项目中。</numerusform>
        </translation>
    </message>
    <message>
        <source>“%1” %2</source>
        <translation>“%1”%2</translation>
    </message>
    <message>
        <source>While the studio was closed: %1.</source>
        <translation>工作室关闭期间：%1。</translation>
    </message>
    <message>
        <source>, </source>
        <translation>，</translation>
    </message>
    <message>
        <source>Project Open in Another Studio</source>
        <translation>项目已在另一个工作室中打开</translation>
    </message>
    <message>
        <source>The demo clips are being made</source>
        <translation>正在生成演示片段</translation>
    </message>
    <message>
        <source>In a minute or two they appear here, captioned, with a tiny model to train on them. The bar at the bottom of the window shows how far it got.</source>
        <translation>一两分钟后，带描述的片段会出现在这里，同时还有一个可用来训练的小模型。窗口底部的进度条显示当前进度。</translation>
    </message>
</context>
<context>
    <name>MemoryEstimate</name>
    <message>
        <source>Prepare</source>
        <translation>准备</translation>
    </message>
    <message>
        <source>Train</source>
        <translation>训练</translation>
    </message>
    <message>
        <source>Validation</source>
        <translation>验证</translation>
    </message>
    <message>
        <source>CUDA context</source>
        <translation>CUDA 上下文</translation>
    </message>
    <message>
        <source>text encoder weights</source>
        <translation>文本编码器权重</translation>
    </message>
    <message>
        <source>text encoder activations</source>
        <translation>文本编码器激活</translation>
    </message>
    <message>
        <source>VAE weights</source>
        <translation>VAE 权重</translation>
    </message>
    <message>
        <source>VAE encode activations</source>
        <translation>VAE 编码激活</translation>
    </message>
    <message>
        <source>VAE decode activations</source>
        <translation>VAE 解码激活</translation>
    </message>
    <message>
        <source>transformer weights</source>
        <translation>Transformer 权重</translation>
    </message>
    <message>
        <source>adapter weights and gradients</source>
        <translation>适配器权重与梯度</translation>
    </message>
    <message>
        <source>gradients</source>
        <translation>梯度</translation>
    </message>
    <message>
        <source>optimizer state</source>
        <translation>优化器状态</translation>
    </message>
    <message>
        <source>activations</source>
        <translation>激活</translation>
    </message>
    <message>
        <source>denoising activations (CFG)</source>
        <translation>去噪激活（CFG）</translation>
    </message>
    <message>
        <source>image encoder weights</source>
        <translation>图像编码器权重</translation>
    </message>
    <message>
        <source>second expert weights</source>
        <translation>第二个专家的权重</translation>
    </message>
    <message>
        <source>other expert weights</source>
        <translation>另一个专家的权重</translation>
    </message>
    <message>
        <source>whole transformer for sampling</source>
        <translation>采样用的完整 Transformer</translation>
    </message>
    <message>
        <source>adapter weights</source>
        <translation>适配器权重</translation>
    </message>
    <message>
        <source>swapped blocks in flight</source>
        <translation>传输中的换出块</translation>
    </message>
    <message>
        <source>swapped blocks</source>
        <translation>换出的块</translation>
    </message>
    <message>
        <source>swapped blocks&apos; gradients</source>
        <translation>换出块的梯度</translation>
    </message>
    <message>
        <source>gradient staging</source>
        <translation>梯度中转</translation>
    </message>
    <message>
        <source>parked expert weights</source>
        <translation>停放的专家权重</translation>
    </message>
    <message>
        <source>expert read back from disk</source>
        <translation>从磁盘读回的专家</translation>
    </message>
    <message>
        <source>offloaded activations</source>
        <translation>卸载的激活</translation>
    </message>
    <message>
        <source>offloaded activations in flight</source>
        <translation>传输中的卸载激活</translation>
    </message>
</context>
<context>
    <name>MemoryEstimator</name>
    <message>
        <source>The engine&apos;s estimate could not be read.</source>
        <translation>无法读取引擎给出的估算。</translation>
    </message>
    <message>
        <source>No temporary folder for the estimate: %1</source>
        <translation>没有可用于估算的临时文件夹：%1</translation>
    </message>
    <message>
        <source>%1 could not be written: %2</source>
        <translation>无法写入 %1：%2</translation>
    </message>
</context>
<context>
    <name>MemoryTableWidget</name>
    <message>
        <source>Save the Memory Table as CSV</source>
        <translation>将内存表保存为 CSV</translation>
    </message>
    <message>
        <source>CSV files (*.csv)</source>
        <translation>CSV 文件 (*.csv)</translation>
    </message>
    <message>
        <source>%1 could not be written: %2</source>
        <translation>无法写入 %1：%2</translation>
    </message>
    <message>
        <source>Peak memory by phase (GiB; on the CPU, the resident set)</source>
        <translation>各阶段峰值内存（GiB；CPU 上为常驻内存）</translation>
    </message>
    <message>
        <source>Copy as Markdown</source>
        <translation>复制为 Markdown</translation>
    </message>
    <message>
        <source>Save CSV…</source>
        <translation>保存 CSV…</translation>
    </message>
    <message>
        <source>Run</source>
        <translation>运行</translation>
    </message>
    <message>
        <source>Rank</source>
        <translation>进程号</translation>
    </message>
</context>
<context>
    <name>MetadataTableSource</name>
    <message>
        <source>The CSV file “%1” has no column naming the clips (its header reads: %2). Name that column path, video or file, then import it again.</source>
        <translation>CSV 文件“%1”中没有指明片段的列（其表头为：%2）。请将该列命名为 path、video 或 file，然后重新导入。</translation>
    </message>
    <message>
        <source>The CSV file “%1” has no caption column (caption, prompt or text), so its clips were imported without captions.</source>
        <translation>CSV 文件“%1”中没有描述列（caption、prompt 或 text），因此其片段已在没有描述的情况下导入。</translation>
    </message>
    <message>
        <source>Line %1 of “%2” names no file, so it was not imported.</source>
        <translation>“%2”的第 %1 行没有指明文件，因此未导入。</translation>
    </message>
    <message>
        <source>Line %1 of “%2” is not a JSON object (%3), so it was not imported. Each line must be one object such as {&quot;path&quot;: &quot;a.mp4&quot;, &quot;caption&quot;: &quot;…&quot;}.</source>
        <translation>“%2”的第 %1 行不是 JSON 对象（%3），因此未导入。每行必须是一个对象，例如 {&quot;path&quot;: &quot;a.mp4&quot;, &quot;caption&quot;: &quot;…&quot;}。</translation>
    </message>
    <message>
        <source>another JSON value</source>
        <translation>其他类型的 JSON 值</translation>
    </message>
    <message>
        <source>Line %1 of “%2” has no &quot;path&quot;, &quot;video&quot; or &quot;file&quot; naming the clip, so it was not imported.</source>
        <translation>“%2”的第 %1 行没有指明片段的 &quot;path&quot;、&quot;video&quot; 或 &quot;file&quot;，因此未导入。</translation>
    </message>
    <message>
        <source>Not imported: %1.</source>
        <translation>未导入：%1。</translation>
    </message>
</context>
<context>
    <name>ModelFacts</name>
    <message>
        <source>The folder holds no transformer a model family of the engine reads. Choose a diffusers pipeline folder (the one with model_index.json) of CogVideoX or Wan.</source>
        <translation>该文件夹中没有引擎的任何模型家族能读取的 Transformer。请选择 CogVideoX 或 Wan 的 diffusers 管线文件夹（含 model_index.json 的那个）。</translation>
    </message>
    <message>
        <source>The engine names no task the model trains.</source>
        <translation>引擎未给出该模型可训练的任务。</translation>
    </message>
    <message>
        <source>image-to-video</source>
        <translation>图生视频</translation>
    </message>
    <message>
        <source>text-to-video</source>
        <translation>文生视频</translation>
    </message>
    <message>
        <source> and </source>
        <translation>和</translation>
    </message>
    <message>
        <source>two experts</source>
        <translation>两个专家</translation>
    </message>
    <message>
        <source>two experts: high noise from t = %1, low noise below</source>
        <translation>两个专家：t = %1 起为高噪声专家，以下为低噪声专家</translation>
    </message>
    <message>
        <source>%1 B parameters</source>
        <translation>%1 B 参数</translation>
    </message>
    <message>
        <source>%1 M parameters</source>
        <translation>%1 M 参数</translation>
    </message>
    <message>
        <source>%1 each</source>
        <translation>各 %1</translation>
    </message>
</context>
<context>
    <name>ModelFamilyRows</name>
    <message>
        <source>Reading the model folder…</source>
        <translation>正在读取模型文件夹…</translation>
    </message>
    <message>
        <source>Task</source>
        <translation>任务</translation>
    </message>
    <message>
        <source>Expert</source>
        <translation>专家</translation>
    </message>
    <message>
        <source>Idle expert waits in</source>
        <translation>空闲专家存放于</translation>
    </message>
    <message>
        <source>Offload blocks</source>
        <translation>卸载块数</translation>
    </message>
    <message>
        <source>First-frame dropout</source>
        <translation>首帧丢弃率</translation>
    </message>
    <message>
        <source>Text to video</source>
        <translation>文生视频</translation>
    </message>
    <message>
        <source>Image to video (from each clip&apos;s first frame)</source>
        <translation>图生视频（取每个片段的首帧）</translation>
    </message>
    <message>
        <source>This model makes videos from a prompt alone and from a prompt with a first frame. Image to video trains on each clip&apos;s first frame (or the one chosen with Use This Frame on the Dataset page) as the picture to start from.</source>
        <translation>此模型既能仅凭提示词生成视频，也能根据提示词加首帧生成。图生视频以每个片段的首帧（或在数据集页面用“使用此帧”选定的帧）作为起始画面来训练。</translation>
    </message>
    <message>
        <source>High-noise expert</source>
        <translation>高噪声专家</translation>
    </message>
    <message>
        <source>Low-noise expert</source>
        <translation>低噪声专家</translation>
    </message>
    <message>
        <source>Both (one at a time)</source>
        <translation>两者（轮流）</translation>
    </message>
    <message>
        <source>This model has two transformers: the high-noise expert lays out composition and motion in the first denoising steps, the low-noise expert refines detail in the last ones. Train one (its noise levels only; about half the memory of both), or both in one run, each step training the one whose noise levels it drew while the other waits. Validation always samples with both.</source>
        <translation>此模型有两个 Transformer：高噪声专家在最初的去噪步中布置构图和运动，低噪声专家在最后几步细化细节。可只训练其中一个（仅其噪声水平；显存约为两者的一半），或在一次运行中训练两者：每步训练抽到的噪声水平所属的那个专家，另一个等待。验证始终用两个专家采样。</translation>
    </message>
    <message>
        <source>Host memory</source>
        <translation>主机内存</translation>
    </message>
    <message>
        <source>Disk (read again when its turn comes)</source>
        <translation>磁盘（轮到它时重新读取）</translation>
    </message>
    <message>
        <source>Where the expert that is not training the current step waits. Host memory takes about 28 GB of RAM for a 14B expert; disk takes none but reads it from the model folder each time the experts change places, which is slower.</source>
        <translation>当前步不训练的专家存放在哪里。主机内存：一个 14B 专家约占 28 GB 内存；磁盘：不占内存，但每次两个专家交换时都要从模型文件夹重新读取，速度较慢。</translation>
    </message>
    <message>
        <source>None</source>
        <translation>无</translation>
    </message>
    <message>
        <source>Keeps the last this many transformer blocks in host memory and copies each to the GPU just before it runs, in the forward and the backward pass: the GPU holds the other blocks and two swapped ones. Lets a model larger than the GPU train, at some speed (the copies overlap the computation); swapped blocks always recompute their activations. The estimate below counts it.</source>
        <translation>把最后这么多个 Transformer 块放在主机内存中，在前向和反向传播中于每个块运行前才把它复制到 GPU：GPU 上只保留其他块和两个换入的块。这样比 GPU 更大的模型也能训练，代价是一些速度（复制与计算重叠）；换出的块总是重新计算其激活。下方的估算已计入此项。</translation>
    </message>
    <message>
        <source>The share of steps that train without the first frame&apos;s picture, so the model also learns to follow the prompt alone (cogvideox-factory&apos;s noised image dropout).</source>
        <translation>不带首帧画面训练的步数比例，让模型也学会仅按提示词生成（cogvideox-factory 的 noised image dropout）。</translation>
    </message>
    <message numerus="yes">
        <source> of %n blocks</source>
        <translation>
            <numerusform> / 共 %n 个块</numerusform>
        </translation>
    </message>
    <message>
        <source>Offload activations</source>
        <translation>卸载激活</translation>
    </message>
    <message>
        <source>Keep recomputed blocks&apos; inputs in host memory</source>
        <translation>把重新计算的块的输入放在主机内存中</translation>
    </message>
    <message>
        <source>Keeps the input each recomputed block saves for the backward pass in host memory instead of on the GPU, copying it back just before the block recomputes: saves about one tensor as large as the video&apos;s tokens per block of GPU memory (about 13 GB for a 14B model at 81 × 480 × 832), for as much host RAM and a copy each way over PCIe per block. Training gives the same results. The estimate below counts it.</source>
        <translation>把每个重新计算的块为反向传播保存的输入放在主机内存而不是 GPU 上，并在该块重新计算前才复制回来：每个块约省下一个与视频 token 同样大小的张量的 GPU 显存（14B 模型在 81 × 480 × 832 下约 13 GB），代价是同样多的主机内存，以及每个块经 PCIe 往返各复制一次。训练结果完全相同。下方的估算已计入此项。</translation>
    </message>
    <message>
        <source>Only blocks that recompute their activations have an input to offload: turn on gradient checkpointing (under Advanced) or offload some blocks.</source>
        <translation>只有重新计算激活的块才有可卸载的输入：请打开梯度检查点（在“高级”中），或卸载一些块。</translation>
    </message>
</context>
<context>
    <name>ModelInspector</name>
    <message>
        <source>The engine could not be started (%1): %2. Build tuneframe-engine, or set TUNEFRAME_ENGINE to its path.</source>
        <translation>无法启动引擎（%1）：%2。请构建 tuneframe-engine，或将 TUNEFRAME_ENGINE 设为其路径。</translation>
    </message>
    <message>
        <source>The engine stopped with exit code %1 while reading the folder.</source>
        <translation>引擎在读取文件夹时以退出码 %1 停止。</translation>
    </message>
    <message>
        <source>The engine&apos;s description of the folder could not be read (%1).</source>
        <translation>无法读取引擎对该文件夹的描述（%1）。</translation>
    </message>
</context>
<context>
    <name>NewProjectDialog</name>
    <message>
        <source>The project will be created in %1</source>
        <translation>项目将创建于 %1</translation>
    </message>
    <message>
        <source>Choose Where to Create the Project</source>
        <translation>选择创建项目的位置</translation>
    </message>
    <message>
        <source>New Project</source>
        <translation>新建项目</translation>
    </message>
    <message>
        <source>A project is a folder for your clips, captions and training runs. Tuneframe creates a new folder with the project&apos;s name.</source>
        <translation>项目是存放视频片段、描述和训练运行的文件夹。Tuneframe 会以项目名称新建一个文件夹。</translation>
    </message>
    <message>
        <source>&amp;Name:</source>
        <translation>名称(&amp;N)：</translation>
    </message>
    <message>
        <source>For example: Ocean waves</source>
        <translation>例如：海浪</translation>
    </message>
    <message>
        <source>&amp;Location:</source>
        <translation>位置(&amp;L)：</translation>
    </message>
    <message>
        <source>&amp;Browse…</source>
        <translation>浏览(&amp;B)…</translation>
    </message>
    <message>
        <source>Create</source>
        <translation>创建</translation>
    </message>
    <message>
        <source>Type a name for the project.</source>
        <translation>请输入项目名称。</translation>
    </message>
    <message>
        <source>A project name cannot contain any of these characters: %1</source>
        <translation>项目名称不能包含以下任何字符：%1</translation>
    </message>
    <message>
        <source>Choose a name other than “%1”.</source>
        <translation>请选择“%1”以外的名称。</translation>
    </message>
    <message>
        <source>Choose where to create the project.</source>
        <translation>请选择创建项目的位置。</translation>
    </message>
    <message>
        <source>The location “%1” does not exist. Choose an existing folder.</source>
        <translation>位置“%1”不存在。请选择一个已存在的文件夹。</translation>
    </message>
    <message>
        <source>You cannot create folders in “%1”. Choose a location you can write to.</source>
        <translation>您无法在“%1”中创建文件夹。请选择一个您有写入权限的位置。</translation>
    </message>
    <message>
        <source>“%1” already exists in this location and is not empty. Choose another name.</source>
        <translation>此位置已存在“%1”且不为空。请换一个名称。</translation>
    </message>
</context>
<context>
    <name>NewRunForm</name>
    <message>
        <source>and before the first step</source>
        <translation>并在第一步之前</translation>
    </message>
    <message>
        <source>Also render the validation prompts before training starts, so the gallery shows what the model made before it learned anything, next to what it makes later.</source>
        <translation>在训练开始前也渲染验证提示词，这样画廊会把模型学到任何东西之前生成的内容，与之后生成的内容并排显示。</translation>
    </message>
    <message>
        <source>Choose the Model Folder</source>
        <translation>选择模型文件夹</translation>
    </message>
    <message>
        <source>Preset</source>
        <translation>预设</translation>
    </message>
    <message>
        <source>Model folder</source>
        <translation>模型文件夹</translation>
    </message>
    <message>
        <source>LoRA rank</source>
        <translation>LoRA 秩</translation>
    </message>
    <message>
        <source>LoRA alpha</source>
        <translation>LoRA alpha</translation>
    </message>
    <message>
        <source>Base weights</source>
        <translation>基础模型权重</translation>
    </message>
    <message>
        <source>Full precision</source>
        <translation>全精度</translation>
    </message>
    <message>
        <source>int8 (smaller, any device)</source>
        <translation>int8（更省内存，任何设备）</translation>
    </message>
    <message>
        <source>fp8 (smaller, CUDA)</source>
        <translation>fp8（更省内存，CUDA）</translation>
    </message>
    <message>
        <source>How the model being fine-tuned is kept in memory while the LoRA trains. int8 and fp8 store its large layers in one byte per weight instead of two, which roughly halves the memory they take, at a small cost in accuracy. The LoRA you export still works with the original model. int8 works everywhere; fp8 needs an engine built with LibTorch 2.1 or newer and is meant for NVIDIA GPUs.</source>
        <translation>训练 LoRA 时被微调的模型在内存中的存放方式。int8 和 fp8 将其大型层以每个权重一个字节（而非两个）存放，这些层占用的内存大约减半，精度略有损失。导出的 LoRA 仍适用于原始模型。int8 在任何设备上都可用；fp8 需要使用 LibTorch 2.1 或更新版本构建的引擎，面向 NVIDIA GPU。</translation>
    </message>
    <message>
        <source>Optimizer</source>
        <translation>优化器</translation>
    </message>
    <message>
        <source>Learning rate</source>
        <translation>学习率</translation>
    </message>
    <message>
        <source>Steps</source>
        <translation>步数</translation>
    </message>
    <message>
        <source>Batch size</source>
        <translation>批大小</translation>
    </message>
    <message>
        <source>Precision</source>
        <translation>精度</translation>
    </message>
    <message>
        <source>Checkpoint every</source>
        <translation>检查点间隔（步）</translation>
    </message>
    <message>
        <source>Validate every</source>
        <translation>验证间隔（步）</translation>
    </message>
    <message>
        <source>Validation prompts</source>
        <translation>验证提示词</translation>
    </message>
    <message>
        <source>Trigger word</source>
        <translation>触发词</translation>
    </message>
    <message>
        <source>Device</source>
        <translation>设备</translation>
    </message>
    <message>
        <source>Browse…</source>
        <translation>浏览…</translation>
    </message>
    <message>
        <source>A diffusers CogVideoX pipeline folder</source>
        <translation>diffusers 格式的 CogVideoX 流水线文件夹</translation>
    </message>
    <message>
        <source>One prompt per line</source>
        <translation>每行一个提示词</translation>
    </message>
    <message>
        <source>Optional: a word put before every caption</source>
        <translation>可选：加在每条描述前面的词</translation>
    </message>
    <message>
        <source>only at the end</source>
        <translation>仅在结束时</translation>
    </message>
    <message>
        <source>never</source>
        <translation>从不</translation>
    </message>
    <message>
        <source>Automatic (a GPU when there is one)</source>
        <translation>自动（有 GPU 时使用 GPU）</translation>
    </message>
    <message>
        <source>CPU</source>
        <translation>CPU</translation>
    </message>
    <message>
        <source>GPU (CUDA)</source>
        <translation>GPU（CUDA）</translation>
    </message>
    <message>
        <source>No training presets were found. Reinstall Tuneframe, or set TUNEFRAME_PRESETS_DIR to a folder of presets.</source>
        <translation>未找到训练预设。请重新安装 Tuneframe，或将 TUNEFRAME_PRESETS_DIR 设为预设所在文件夹。</translation>
    </message>
    <message>
        <source>Choose the model folder to train (a diffusers CogVideoX pipeline).</source>
        <translation>请选择要训练的模型文件夹（diffusers 格式的 CogVideoX 流水线）。</translation>
    </message>
    <message>
        <source>The model folder %1 does not exist. Choose a diffusers CogVideoX pipeline folder.</source>
        <translation>模型文件夹 %1 不存在。请选择 diffusers 格式的 CogVideoX 流水线文件夹。</translation>
    </message>
    <message>
        <source>The learning rate “%1” is not a number. Write it like 1e-4 or 0.0001.</source>
        <translation>学习率“%1”不是数字。请写成 1e-4 或 0.0001 这样的形式。</translation>
    </message>
    <message>
        <source>Import cogvideox-factory Command…</source>
        <translation>导入 cogvideox-factory 命令…</translation>
    </message>
    <message>
        <source>GPU %1: %2, %3 of %4 GiB free</source>
        <translation>GPU %1：%2，可用 %3 GiB / 共 %4 GiB</translation>
    </message>
    <message>
        <source>%1 (yours)</source>
        <translation>%1（我的）</translation>
    </message>
    <message>
        <source>Save as Preset</source>
        <translation>另存为预设</translation>
    </message>
    <message>
        <source>A name for these settings (the model folder is not saved):</source>
        <translation>为这些设置命名（不保存模型文件夹）：</translation>
    </message>
    <message>
        <source>%1, my settings</source>
        <translation>%1，我的设置</translation>
    </message>
    <message>
        <source>Delete Preset</source>
        <translation>删除预设</translation>
    </message>
    <message>
        <source>Delete your preset “%1”? Runs made with it keep their settings.</source>
        <translation>删除你的预设“%1”？用它创建的运行会保留各自的设置。</translation>
    </message>
    <message>
        <source>free on GPU %1 (%2)</source>
        <translation>GPU %1（%2）上空闲</translation>
    </message>
    <message>
        <source>%1 needs about %2 per process, more than the %3 %4. Lower the batch size or the largest bucket, turn on gradient checkpointing or VAE tiling, choose an 8-bit or CPU-offloaded optimizer, add GPUs with ZeRO-2, or pick a preset for less memory.</source>
        <translation>%1 阶段每个进程约需 %2，超过了%4的 %3。请减小批大小或最大分桶，开启梯度检查点或 VAE 分块，选择 8 位或 CPU 卸载的优化器，用 ZeRO-2 增加 GPU，或选择内存需求更低的预设。</translation>
    </message>
    <message>
        <source>%1: not run</source>
        <translation>%1：不运行</translation>
    </message>
    <message>
        <source>Memory estimate per process:</source>
        <translation>每个进程的内存估算：</translation>
    </message>
    <message>
        <source>No memory estimate: %1</source>
        <translation>无内存估算：%1</translation>
    </message>
    <message>
        <source>GPUs to use</source>
        <translation>使用的 GPU</translation>
    </message>
    <message>
        <source>CPU processes</source>
        <translation>CPU 进程数</translation>
    </message>
    <message>
        <source>Save as Preset…</source>
        <translation>另存为预设…</translation>
    </message>
    <message>
        <source>Keep these settings as a preset of your own.</source>
        <translation>将这些设置保存为你自己的预设。</translation>
    </message>
    <message>
        <source>Delete</source>
        <translation>删除</translation>
    </message>
    <message>
        <source>Delete this preset (only presets you saved).</source>
        <translation>删除此预设（仅限你保存的预设）。</translation>
    </message>
    <message>
        <source>Several GPUs (one worker each)</source>
        <translation>多块 GPU（每块一个工作进程）</translation>
    </message>
    <message>
        <source>More than one process trains data parallel on the CPU, the way several GPUs would; each process gets a share of the cores.</source>
        <translation>多于一个进程时在 CPU 上以数据并行训练，与多块 GPU 的方式相同；每个进程分得一部分核心。</translation>
    </message>
    <message>
        <source>Tick at least one GPU to train on.</source>
        <translation>请至少勾选一块用于训练的 GPU。</translation>
    </message>
    <message>
        <source>available to each process on this computer</source>
        <translation>本机每个进程可用</translation>
    </message>
    <message>
        <source>Hugging Face</source>
        <translation>Hugging Face</translation>
    </message>
    <message>
        <source>CogVideoX models in the Hugging Face cache (downloaded with huggingface-cli or by a trainer built on huggingface_hub), by repository and revision.</source>
        <translation>Hugging Face 缓存中的 CogVideoX 模型（用 huggingface-cli 或基于 huggingface_hub 的训练器下载），按仓库和版本列出。</translation>
    </message>
    <message>
        <source>No CogVideoX model in %1</source>
        <translation>%1 中没有 CogVideoX 模型</translation>
    </message>
    <message>
        <source>Download…</source>
        <translation>下载…</translation>
    </message>
    <message>
        <source>Download a CogVideoX pipeline from the Hugging Face Hub into this cache.</source>
        <translation>从 Hugging Face Hub 下载 CogVideoX 管线到此缓存。</translation>
    </message>
    <message>
        <source>Machines</source>
        <translation>机器数</translation>
    </message>
    <message>
        <source>For %1 models; the model folder holds a %2 model.</source>
        <translation>适用于 %1 模型；模型文件夹中是 %2 模型。</translation>
    </message>
    <message>
        <source>%1 keeps about %2 in this computer&apos;s memory, more than the %3 available. Offload fewer blocks or no activations, park the idle expert on the disk, or close other programs.</source>
        <translation>%1 阶段会在本机内存中占用约 %2，超过可用的 %3。请减少卸载的块或不卸载激活、把空闲专家存放到磁盘，或关闭其他程序。</translation>
    </message>
    <message>
        <source>%1 needs about %2 per process, more than the %3 %4. Lower the batch size or the largest bucket, turn on gradient checkpointing or VAE tiling, choose an 8-bit or CPU-offloaded optimizer, store the base weights in int8 or fp8, offload blocks or activations to host memory, add GPUs with ZeRO-2, or pick a preset for less memory.</source>
        <translation>%1 阶段每个进程约需 %2，超过了%4的 %3。请减小批大小或最大分桶，开启梯度检查点或 VAE 分块，选择 8 位或 CPU 卸载的优化器，以 int8 或 fp8 存储基础权重，把块或激活卸载到主机内存，用 ZeRO-2 增加 GPU，或选择内存需求更低的预设。</translation>
    </message>
    <message>
        <source>In host memory while training: %1</source>
        <translation>训练时占用的主机内存：%1</translation>
    </message>
    <message>
        <source>CogVideoX and Wan pipelines in the Hugging Face cache (downloaded with huggingface-cli or by a trainer built on huggingface_hub), by repository and revision.</source>
        <translation>Hugging Face 缓存中的 CogVideoX 和 Wan 管线（由 huggingface-cli 或基于 huggingface_hub 的训练器下载），按仓库和版本列出。</translation>
    </message>
    <message>
        <source>A diffusers CogVideoX or Wan pipeline folder</source>
        <translation>diffusers 格式的 CogVideoX 或 Wan 管线文件夹</translation>
    </message>
    <message>
        <source>Choose the model folder to train (a diffusers CogVideoX or Wan pipeline).</source>
        <translation>请选择要训练的模型文件夹（diffusers 格式的 CogVideoX 或 Wan 管线）。</translation>
    </message>
    <message>
        <source>The model folder %1 does not exist. Choose a diffusers CogVideoX or Wan pipeline folder.</source>
        <translation>模型文件夹 %1 不存在。请选择 diffusers 格式的 CogVideoX 或 Wan 管线文件夹。</translation>
    </message>
    <message>
        <source>“%1” is a preset for %2 models, and the model folder holds a %3 model. Choose a %3 preset.</source>
        <translation>“%1”是 %2 模型的预设，而模型文件夹中是 %3 模型。请选择 %3 的预设。</translation>
    </message>
    <message>
        <source>Reading the model folder…</source>
        <translation>正在读取模型文件夹…</translation>
    </message>
    <message>
        <source>No CogVideoX or Wan pipeline in %1</source>
        <translation>%1 中没有 CogVideoX 或 Wan 管线</translation>
    </message>
    <message>
        <source>Download a CogVideoX or Wan pipeline from the Hugging Face Hub into this cache.</source>
        <translation>从 Hugging Face Hub 下载 CogVideoX 或 Wan 管线到此缓存。</translation>
    </message>
</context>
<context>
    <name>ParallelPlanRows</name>
    <message>
        <source>Parallel plan</source>
        <translation>并行方案</translation>
    </message>
    <message>
        <source>Sequence-parallel ranks</source>
        <translation>序列并行进程数</translation>
    </message>
    <message>
        <source>Data parallel (DDP)</source>
        <translation>数据并行（DDP）</translation>
    </message>
    <message>
        <source>ZeRO-1 (optimizer state sharded)</source>
        <translation>ZeRO-1（分片优化器状态）</translation>
    </message>
    <message>
        <source>ZeRO-2 (optimizer state and gradients sharded)</source>
        <translation>ZeRO-2（分片优化器状态与梯度）</translation>
    </message>
    <message>
        <source>Hybrid (pipeline, tensor and sequence parallel with data parallel)</source>
        <translation>混合（流水线、张量与序列并行，配合数据并行）</translation>
    </message>
    <message>
        <source>Processes that share one video&apos;s tokens. The model&apos;s attention heads and the process count must both divide by it.</source>
        <translation>共同处理同一视频 token 的进程数。模型的注意力头数和进程总数都必须能被它整除。</translation>
    </message>
    <message>
        <source>%1 processes cannot be split into groups of %2 tensor-parallel × %3 sequence-parallel ranks × %4 pipeline stages. Choose sizes whose product divides the process count.</source>
        <translation>%1 个进程无法分成每组 %2 个张量并行 × %3 个序列并行 × %4 个流水线阶段的进程组。请选择乘积能整除进程数的大小。</translation>
    </message>
    <message>
        <source>Tensor-parallel ranks</source>
        <translation>张量并行进程数</translation>
    </message>
    <message>
        <source>Optimizer sharding</source>
        <translation>优化器分片</translation>
    </message>
    <message>
        <source>Every GPU holds the whole model and trains on its own clips; gradients are averaged once per step.</source>
        <translation>每块 GPU 持有完整模型，用各自的片段训练；每步对梯度求一次平均。</translation>
    </message>
    <message>
        <source>As data parallel, but each GPU keeps the optimizer state of its share of the weights only.</source>
        <translation>与数据并行相同，但每块 GPU 只保存其所分得权重的优化器状态。</translation>
    </message>
    <message>
        <source>As ZeRO-1, and each GPU also keeps only its share of the gradients: the least memory of the data-parallel plans.</source>
        <translation>与 ZeRO-1 相同，且每块 GPU 也只保存其所分得的梯度：数据并行方案中显存占用最少。</translation>
    </message>
    <message>
        <source>For models or videos too large for one GPU: pipeline parallel gives each GPU a run of the blocks, tensor parallel splits every block&apos;s heads and features between GPUs, sequence parallel splits each video&apos;s tokens, and the rest of the GPUs train data parallel.</source>
        <translation>用于单块 GPU 放不下的模型或视频：流水线并行让每块 GPU 持有一段连续的模块，张量并行把每个模块的注意力头和前馈特征分到多块 GPU，序列并行切分每个视频的 token，其余 GPU 以数据并行训练。</translation>
    </message>
    <message>
        <source>GPUs that share every block&apos;s weights, each holding a part of the attention heads and feed-forward features. Fastest within one machine; the heads must divide by it times the sequence-parallel ranks.</source>
        <translation>共同持有每个模块权重的 GPU 数，每块持有一部分注意力头和前馈特征。在同一台机器内最快；注意力头数必须能被它与序列并行进程数之积整除。</translation>
    </message>
    <message>
        <source>None (every replica keeps all)</source>
        <translation>无（每个副本保存全部）</translation>
    </message>
    <message>
        <source>Pipeline stages</source>
        <translation>流水线阶段数</translation>
    </message>
    <message>
        <source>GPUs that hold a run of the model&apos;s blocks each, the step&apos;s batches flowing through them one after another (gradient accumulation sets how many). Each holds only its blocks&apos; weights and optimizer state; it passes one video&apos;s tokens per batch to the next, so it suits GPUs on different machines. Accumulate at least as many batches as there are stages to keep every GPU busy.</source>
        <translation>每块 GPU 持有模型中连续的一段模块，每一步的各个批次依次流经它们（批次数由梯度累积决定）。每块 GPU 只保存自己那段模块的权重和优化器状态；每个批次只把一个视频的 token 传给下一段，因此适合分布在不同机器上的 GPU。累积的批次数至少等于阶段数，才能让每块 GPU 都保持忙碌。</translation>
    </message>
</context>
<context>
    <name>Project</name>
    <message>
        <source>A project needs a name. Type a name for it.</source>
        <translation>项目需要名称。请为它输入一个名称。</translation>
    </message>
    <message>
        <source>“%1” is a file, not a folder. Choose a new or empty folder for the project.</source>
        <translation>“%1”是文件而不是文件夹。请为项目选择一个新的或空的文件夹。</translation>
    </message>
    <message>
        <source>The folder “%1” already holds a Tuneframe project. Open it with File &gt; Open Project…, or choose another folder.</source>
        <translation>文件夹“%1”中已有一个 Tuneframe 项目。请通过“文件 &gt; 打开项目…”打开它，或选择其他文件夹。</translation>
    </message>
    <message>
        <source>The folder “%1” is not empty. Choose a new or empty folder for the project, so its files stay apart from yours.</source>
        <translation>文件夹“%1”不为空。请为项目选择一个新的或空的文件夹，使项目文件与您的其他文件分开存放。</translation>
    </message>
    <message>
        <source>Could not create the folder “%1”. Choose a location you can write to.</source>
        <translation>无法创建文件夹“%1”。请选择一个您有写入权限的位置。</translation>
    </message>
    <message>
        <source>the cache and runs folders cannot be created</source>
        <translation>无法创建 cache 和 runs 文件夹</translation>
    </message>
    <message>
        <source>Could not create the project in “%1”: %2. Check that the folder is writable and the disk is not full.</source>
        <translation>无法在“%1”中创建项目：%2。请检查该文件夹是否可写，以及磁盘是否已满。</translation>
    </message>
    <message>
        <source>The folder “%1” does not exist. It may have been moved or renamed, or be on a drive that is not connected. Connect the drive, or choose File &gt; Open Project… and select the project&apos;s new location.</source>
        <translation>文件夹“%1”不存在。它可能已被移动或重命名，或位于未连接的驱动器上。请连接该驱动器，或选择“文件 &gt; 打开项目…”并选择项目的新位置。</translation>
    </message>
    <message>
        <source>“%1” is a file, not a folder. A Tuneframe project is a folder: choose the folder that contains %2.</source>
        <translation>“%1”是文件而不是文件夹。Tuneframe 项目是一个文件夹：请选择包含 %2 的文件夹。</translation>
    </message>
    <message>
        <source>The folder “%1” is not a Tuneframe project: it has no %2. Choose the folder that contains %2, or create a new project with File &gt; New Project….</source>
        <translation>文件夹“%1”不是 Tuneframe 项目：其中没有 %2。请选择包含 %2 的文件夹，或通过“文件 &gt; 新建项目…”创建新项目。</translation>
    </message>
    <message>
        <source>The project folder “%1” is read-only. Tuneframe saves your work into the project, so make the folder and its %2 writable, or copy the project to a folder you own and open the copy.</source>
        <translation>项目文件夹“%1”是只读的。Tuneframe 会把您的工作保存到项目中，因此请让该文件夹及其中的 %2 可写，或将项目复制到您拥有的文件夹并打开副本。</translation>
    </message>
    <message>
        <source>the database is empty</source>
        <translation>数据库为空</translation>
    </message>
    <message>
        <source>The project database “%1” cannot be read (%2). Restore %3 from a backup, or create a new project.</source>
        <translation>无法读取项目数据库“%1”（%2）。请从备份恢复 %3，或创建新项目。</translation>
    </message>
    <message>
        <source>The project in “%1” was saved by a newer version of Tuneframe (project format %2; this version reads formats up to %3). Update Tuneframe to open it.</source>
        <translation>“%1”中的项目由更新版本的 Tuneframe 保存（项目格式 %2；此版本最高只能读取格式 %3）。请更新 Tuneframe 后再打开。</translation>
    </message>
    <message>
        <source>Could not upgrade the project in “%1” to this version&apos;s format (%2). Check that the folder is writable and the disk is not full, then open it again.</source>
        <translation>无法将“%1”中的项目升级到此版本的格式（%2）。请检查该文件夹是否可写、磁盘是否已满，然后重新打开。</translation>
    </message>
    <message>
        <source>the database refused write-ahead logging (journal mode %1)</source>
        <translation>数据库拒绝启用预写日志（日志模式为 %1）</translation>
    </message>
    <message>
        <source>The project in “%1” is in an older format, which only a studio that may change it can upgrade, and another studio holds it. Close that studio&apos;s window, or open the project there.</source>
        <translation>“%1”中的项目是旧格式，只有可以更改它的工作室才能升级，而它正被另一个工作室占用。请关闭那个工作室的窗口，或在那里打开该项目。</translation>
    </message>
</context>
<context>
    <name>RatingWidget</name>
    <message>
        <source>The selected clips have different ratings. Click a star to give them all that rating (keys 1–5, 0 clears).</source>
        <translation>所选片段的评分各不相同。点击一颗星可将它们全部设为该评分（按键 1–5，0 清除）。</translation>
    </message>
    <message>
        <source>Not rated. Click a star to rate (keys 1–5).</source>
        <translation>未评分。点击星星进行评分（按键 1–5）。</translation>
    </message>
    <message>
        <source>Rated %1 of 5. Click the same star again to clear (key 0).</source>
        <translation>评分：%1/5。再次点击同一颗星可清除评分（按键 0）。</translation>
    </message>
    <message>
        <source>Rating</source>
        <translation>评分</translation>
    </message>
</context>
<context>
    <name>RunControlBar</name>
    <message>
        <source>Edit Settings…</source>
        <translation>编辑设置…</translation>
    </message>
    <message>
        <source>The run stopped on its settings before its first step, so continuing would fail the same way. Put its settings in the new-run form to fix them and train again.</source>
        <translation>该运行在第一步之前因设置问题而停止，继续只会以同样的方式失败。请把它的设置放回新建运行表单中修改，然后重新训练。</translation>
    </message>
    <message>
        <source>&amp;Stop</source>
        <translation>停止(&amp;S)</translation>
    </message>
    <message>
        <source>&amp;Resume</source>
        <translation>恢复(&amp;R)</translation>
    </message>
    <message>
        <source>&amp;Pause</source>
        <translation>暂停(&amp;P)</translation>
    </message>
    <message>
        <source>&amp;Continue</source>
        <translation>继续(&amp;C)</translation>
    </message>
    <message>
        <source>Sample &amp;Now</source>
        <translation>立即采样(&amp;N)</translation>
    </message>
    <message>
        <source>Sa&amp;ve Checkpoint Now</source>
        <translation>立即保存检查点(&amp;V)</translation>
    </message>
    <message>
        <source>Paused; about %1 left once resumed</source>
        <translation>已暂停；恢复后约剩 %1</translation>
    </message>
    <message>
        <source>%1 h %2 min</source>
        <translation>%1 小时 %2 分</translation>
    </message>
    <message>
        <source>%1 min %2 s</source>
        <translation>%1 分 %2 秒</translation>
    </message>
    <message>
        <source>%1 s</source>
        <translation>%1 秒</translation>
    </message>
    <message>
        <source>No run selected</source>
        <translation>未选择运行</translation>
    </message>
    <message>
        <source>Stop</source>
        <translation>停止</translation>
    </message>
    <message>
        <source>Write a checkpoint, then end the run. Continue picks it up.</source>
        <translation>写入检查点后结束运行。“继续”可从该检查点接着训练。</translation>
    </message>
    <message>
        <source>Resume</source>
        <translation>恢复</translation>
    </message>
    <message>
        <source>Pause</source>
        <translation>暂停</translation>
    </message>
    <message>
        <source>Hold training between steps, keeping the model in memory.</source>
        <translation>在两步之间暂停训练，模型保留在内存中。</translation>
    </message>
    <message>
        <source>Sample Now</source>
        <translation>立即采样</translation>
    </message>
    <message>
        <source>Render the validation prompts with the weights as they are.</source>
        <translation>用当前权重渲染验证提示词。</translation>
    </message>
    <message>
        <source>Save Now</source>
        <translation>立即保存</translation>
    </message>
    <message>
        <source>Write a checkpoint now and keep training.</source>
        <translation>立即写入检查点并继续训练。</translation>
    </message>
    <message>
        <source>Continue</source>
        <translation>继续</translation>
    </message>
    <message>
        <source>Start the engine again on this run; it resumes from the newest checkpoint.</source>
        <translation>在此运行上重新启动引擎；它会从最新的检查点继续。</translation>
    </message>
    <message>
        <source>Export…</source>
        <translation>导出…</translation>
    </message>
    <message>
        <source>%1 of %2 %3</source>
        <translation>%1 / %2 %3</translation>
    </message>
    <message>
        <source>%1 of 1 clip</source>
        <translation>第 %1 / 1 个片段</translation>
    </message>
    <message>
        <source>%1 of %2 clips</source>
        <translation>第 %1 / %2 个片段</translation>
    </message>
    <message>
        <source>%1 of 1 caption</source>
        <translation>第 %1 / 1 条描述</translation>
    </message>
    <message>
        <source>%1 of %2 captions</source>
        <translation>第 %1 / %2 条描述</translation>
    </message>
    <message>
        <source>Step %1 of %2</source>
        <translation>第 %1 / %2 步</translation>
    </message>
    <message>
        <source>Run %1 of %2</source>
        <translation>第 %1 / %2 次运行</translation>
    </message>
    <message>
        <source>Frame %1 of %2</source>
        <translation>第 %1 帧，共 %2 帧</translation>
    </message>
    <message>
        <source>About %1 left</source>
        <translation>约剩 %1</translation>
    </message>
    <message>
        <source>Open in TensorBoard…</source>
        <translation>在 TensorBoard 中打开…</translation>
    </message>
    <message>
        <source>Show the command that opens this run&apos;s event files in TensorBoard.</source>
        <translation>显示在 TensorBoard 中打开此运行事件文件的命令。</translation>
    </message>
    <message>
        <source>TensorBoard…</source>
        <translation>TensorBoard…</translation>
    </message>
</context>
<context>
    <name>RunDashboard</name>
    <message>
        <source>Learning rate and grad norm</source>
        <translation>学习率与梯度范数</translation>
    </message>
    <message>
        <source>Speed</source>
        <translation>速度</translation>
    </message>
    <message>
        <source>Memory</source>
        <translation>内存</translation>
    </message>
    <message>
        <source>Device total %1 GiB</source>
        <translation>设备总量 %1 GiB</translation>
    </message>
    <message>
        <source>Step %1 (epoch %2)
Loss %3
Learning rate %4
Grad norm %5
Step time %6 s, %7 samples/s</source>
        <translation>第 %1 步（第 %2 轮）
损失 %3
学习率 %4
梯度范数 %5
每步 %6 秒，%7 样本/秒</translation>
    </message>
    <message>
        <source>Rank %1: %2 GiB allocated, %3 GiB peak of %4 GiB</source>
        <translation>进程 %1：已分配 %2 GiB，峰值 %3 GiB，共 %4 GiB</translation>
    </message>
    <message>
        <source>%1 at step %2: loss %3</source>
        <translation>%1 第 %2 步：损失 %3</translation>
    </message>
    <message>
        <source>%1 could not be written: %2</source>
        <translation>无法写入 %1：%2</translation>
    </message>
    <message>
        <source>Smoothing %1</source>
        <translation>平滑 %1</translation>
    </message>
    <message>
        <source>Fit</source>
        <translation>适应全部</translation>
    </message>
    <message>
        <source>Show every point (or double-click a plot).</source>
        <translation>显示所有数据点（或双击图表）。</translation>
    </message>
    <message>
        <source>Save PNG…</source>
        <translation>保存 PNG…</translation>
    </message>
    <message>
        <source>Save CSV…</source>
        <translation>保存 CSV…</translation>
    </message>
    <message>
        <source>Step</source>
        <translation>步数</translation>
    </message>
    <message>
        <source>Loss</source>
        <translation>损失</translation>
    </message>
    <message>
        <source>Loss, smoothed</source>
        <translation>损失（平滑）</translation>
    </message>
    <message>
        <source>%1, smoothed</source>
        <translation>%1（平滑）</translation>
    </message>
    <message>
        <source>Learning rate</source>
        <translation>学习率</translation>
    </message>
    <message>
        <source>Grad norm</source>
        <translation>梯度范数</translation>
    </message>
    <message>
        <source>%1, learning rate</source>
        <translation>%1 的学习率</translation>
    </message>
    <message>
        <source>Seconds per step</source>
        <translation>每步秒数</translation>
    </message>
    <message>
        <source>Samples per second</source>
        <translation>每秒样本数</translation>
    </message>
    <message>
        <source>Step time</source>
        <translation>每步用时</translation>
    </message>
    <message>
        <source>Samples/s</source>
        <translation>样本/秒</translation>
    </message>
    <message>
        <source>Memory (GiB)</source>
        <translation>显存/内存（GiB）</translation>
    </message>
    <message>
        <source>Device total</source>
        <translation>设备总量</translation>
    </message>
    <message>
        <source>allocated</source>
        <translation>已分配</translation>
    </message>
    <message>
        <source>reserved</source>
        <translation>已预留</translation>
    </message>
    <message>
        <source>peak</source>
        <translation>峰值</translation>
    </message>
    <message>
        <source>Rank %1 %2</source>
        <translation>进程 %1 %2</translation>
    </message>
    <message>
        <source>Save Plots as PNG</source>
        <translation>将图表保存为 PNG</translation>
    </message>
    <message>
        <source>PNG images (*.png)</source>
        <translation>PNG 图片 (*.png)</translation>
    </message>
    <message>
        <source>Save Metrics as CSV</source>
        <translation>将指标保存为 CSV</translation>
    </message>
    <message>
        <source>CSV files (*.csv)</source>
        <translation>CSV 文件 (*.csv)</translation>
    </message>
    <message>
        <source>Smoothing</source>
        <translation>平滑</translation>
    </message>
    <message>
        <source>Smoothing %1 (0: none): the loss and the step time are averaged over the steps before, as TensorBoard does.</source>
        <translation>平滑 %1（0：不平滑）：损失和每步用时按之前的步数取平均，与 TensorBoard 相同。</translation>
    </message>
    <message>
        <source>Save</source>
        <translation>保存</translation>
    </message>
    <message>
        <source>Save the plots as a picture or the numbers as CSV.</source>
        <translation>将图表保存为图片，或将数值保存为 CSV。</translation>
    </message>
    <message>
        <source>Plots as PNG…</source>
        <translation>图表另存为 PNG…</translation>
    </message>
    <message>
        <source>Numbers as CSV…</source>
        <translation>数值另存为 CSV…</translation>
    </message>
    <message>
        <source>Seconds per step, smoothed</source>
        <translation>每步秒数（平滑）</translation>
    </message>
</context>
<context>
    <name>RunExportDialog</name>
    <message>
        <source>Export Destination</source>
        <translation>导出位置</translation>
    </message>
    <message>
        <source>Choose a destination folder.</source>
        <translation>请选择目标文件夹。</translation>
    </message>
    <message>
        <source>Exporting and verifying…</source>
        <translation>正在导出并校验…</translation>
    </message>
    <message>
        <source>Export Adapter</source>
        <translation>导出适配器</translation>
    </message>
    <message>
        <source>Run</source>
        <translation>运行</translation>
    </message>
    <message>
        <source>Checkpoint</source>
        <translation>检查点</translation>
    </message>
    <message>
        <source>Format</source>
        <translation>格式</translation>
    </message>
    <message>
        <source>Destination</source>
        <translation>目标位置</translation>
    </message>
    <message>
        <source>Browse…</source>
        <translation>浏览…</translation>
    </message>
    <message>
        <source>Export</source>
        <translation>导出</translation>
    </message>
    <message>
        <source>Diffusers LoRA</source>
        <translation>Diffusers LoRA</translation>
    </message>
    <message>
        <source>ComfyUI LoRA</source>
        <translation>ComfyUI LoRA</translation>
    </message>
    <message>
        <source>Merged transformer</source>
        <translation>合并后的 Transformer</translation>
    </message>
    <message>
        <source>Fine-tuned transformer</source>
        <translation>微调后的 Transformer</translation>
    </message>
    <message>
        <source>A full fine-tune has no adapter: this is the trained transformer as a diffusers transformer folder (CogVideoXTransformer3DModel.from_pretrained), to put in place of the pipeline&apos;s transformer/.</source>
        <translation>全量微调没有适配器：导出的是训练后的 Transformer，为 diffusers 的 Transformer 文件夹（CogVideoXTransformer3DModel.from_pretrained），用它替换管线中的 transformer/。</translation>
    </message>
    <message>
        <source>For diffusers: CogVideoXPipeline.load_lora_weights() reads this pytorch_lora_weights.safetensors (PEFT keys, strength folded in, so weight 1 is the trained strength). ComfyUI&apos;s CogVideoXWrapper reads it too.</source>
        <translation>用于 diffusers：CogVideoXPipeline.load_lora_weights() 读取此 pytorch_lora_weights.safetensors（PEFT 键名，强度已折算进权重，权重 1 即训练时的强度）。ComfyUI 的 CogVideoXWrapper 也能读取它。</translation>
    </message>
    <message>
        <source>For ComfyUI with kijai&apos;s CogVideoXWrapper: put the file in models/CogVideo/loras and choose it in the “CogVideo LoraSelect” node (or in models/loras with “CogVideo LoraSelect Comfy”), then connect that node to the lora input of the model loader. kohya-style keys (lora_unet_…, an alpha per layer), merged into the model as it loads; for CogVideoX 1.0 and 1.5 alike.</source>
        <translation>用于装有 kijai 的 CogVideoXWrapper 的 ComfyUI：将文件放入 models/CogVideo/loras，在“CogVideo LoraSelect”节点中选择它（或放入 models/loras，使用“CogVideo LoraSelect Comfy”节点），再将该节点连接到模型加载节点的 lora 输入。kohya 格式键名（lora_unet_…，每层一个 alpha），在模型加载时合并进权重；CogVideoX 1.0 与 1.5 均适用。</translation>
    </message>
    <message>
        <source>For any diffusers reader: the transformer with the adapter merged in, as a diffusers transformer folder (CogVideoXTransformer3DModel.from_pretrained); no LoRA support needed to load it.</source>
        <translation>适用于任何读取 diffusers 格式的工具：合并了适配器的 Transformer，保存为 diffusers 格式的 transformer 文件夹（CogVideoXTransformer3DModel.from_pretrained）；加载时无需 LoRA 支持。</translation>
    </message>
    <message>
        <source>Step %1</source>
        <translation>第 %1 步</translation>
    </message>
    <message>
        <source>Exported to %1 and verified: reloaded, it differs from the trained model by at most %2 (tolerance %3).</source>
        <translation>已导出到 %1 并完成校验：重新加载后与训练模型的最大差异为 %2（容差 %3）。</translation>
    </message>
    <message>
        <source>What to do: %1</source>
        <translation>处理方法：%1</translation>
    </message>
    <message>
        <source>Open Folder</source>
        <translation>打开文件夹</translation>
    </message>
    <message>
        <source>Shows the exported adapter in the file manager.</source>
        <translation>在文件管理器中显示导出的适配器。</translation>
    </message>
    <message>
        <source>Whole pipeline</source>
        <translation>完整管线</translation>
    </message>
    <message>
        <source>A whole diffusers pipeline folder: the trained transformer with the base model&apos;s VAE, text encoder, tokenizer and scheduler, which are hard links to the base model&apos;s files where the disk allows, so they take no extra space. CogVideoXPipeline.from_pretrained() loads it as it is, ComfyUI&apos;s CogVideoXWrapper loads it from models/CogVideo, and Tuneframe can train further from it: choose it as a new run&apos;s model folder.</source>
        <translation>完整的 diffusers 管线文件夹：训练后的 Transformer，加上基础模型的 VAE、文本编码器、分词器和调度器；磁盘允许时它们是指向基础模型文件的硬链接，不额外占用空间。CogVideoXPipeline.from_pretrained() 可直接加载它，ComfyUI 的 CogVideoXWrapper 可从 models/CogVideo 加载它，Tuneframe 也能在它的基础上继续训练：在新运行中把它选为模型文件夹即可。</translation>
    </message>
    <message>
        <source>Export the Fine-Tuned Model</source>
        <translation>导出微调后的模型</translation>
    </message>
    <message>
        <source>high-noise expert</source>
        <translation>高噪声专家</translation>
    </message>
    <message>
        <source>low-noise expert</source>
        <translation>低噪声专家</translation>
    </message>
    <message>
        <source>Wan LoRA (ComfyUI, original Wan)</source>
        <translation>Wan LoRA（ComfyUI、Wan 原版）</translation>
    </message>
    <message>
        <source>musubi-tuner LoRA</source>
        <translation>musubi-tuner LoRA</translation>
    </message>
    <message>
        <source>For diffusers: WanPipeline.load_lora_weights() reads each expert&apos;s pytorch_lora_weights file (PEFT keys, strength folded in, so weight 1 is the trained strength): the _high_noise one as it is, the _low_noise one with load_into_transformer_2=True.</source>
        <translation>用于 diffusers：WanPipeline.load_lora_weights() 读取每个专家的 pytorch_lora_weights 文件（PEFT 键名，强度已并入，权重 1 即训练时的强度）：_high_noise 文件直接加载，_low_noise 文件加 load_into_transformer_2=True 加载。</translation>
    </message>
    <message>
        <source>For diffusers: WanPipeline.load_lora_weights() reads this pytorch_lora_weights.safetensors (PEFT keys, strength folded in, so weight 1 is the trained strength).</source>
        <translation>用于 diffusers：WanPipeline.load_lora_weights() 读取此 pytorch_lora_weights.safetensors（PEFT 键名，强度已并入，权重 1 即训练时的强度）。</translation>
    </message>
    <message>
        <source>For ComfyUI&apos;s LoraLoader with Wan models and the original Wan code: the original Wan layout (diffusion_model.blocks.N.self_attn.q.lora_down, an alpha per layer), which diffusers&apos; WanPipeline.load_lora_weights() converts too. A two-expert model gets a _high_noise and a _low_noise file, one for each expert&apos;s loader.</source>
        <translation>用于 ComfyUI 的 LoraLoader（Wan 模型）和 Wan 原版代码：Wan 原版布局（diffusion_model.blocks.N.self_attn.q.lora_down，每层一个 alpha），diffusers 的 WanPipeline.load_lora_weights() 也能转换。双专家模型会得到 _high_noise 和 _low_noise 两个文件，分别供各专家的加载器使用。</translation>
    </message>
    <message>
        <source>For musubi-tuner (to train further or merge there) and diffusers through its converter: kohya-style keys of the blocks&apos; layers (lora_unet_blocks_N_…, an alpha per layer). A two-expert model gets a _high_noise and a _low_noise file.</source>
        <translation>用于 musubi-tuner（在那里继续训练或合并）以及经其转换器的 diffusers：各块层的 kohya 风格键名（lora_unet_blocks_N_…，每层一个 alpha）。双专家模型会得到 _high_noise 和 _low_noise 两个文件。</translation>
    </message>
    <message>
        <source>A whole diffusers pipeline folder: the trained transformer (both experts&apos; of a two-expert model) with the base model&apos;s VAE, text encoder, tokenizer, scheduler and image encoder as hard links to its files where the disk allows. WanPipeline.from_pretrained() loads it as it is, and Tuneframe can train further from it: choose it as a new run&apos;s model folder.</source>
        <translation>完整的 diffusers 管线文件夹：训练好的 Transformer（双专家模型则为两个专家的），以及基础模型的 VAE、文本编码器、分词器、调度器和图像编码器（磁盘允许时以硬链接指向其文件）。WanPipeline.from_pretrained() 可直接加载，Tuneframe 也能在其基础上继续训练：将它选为新运行的模型文件夹即可。</translation>
    </message>
    <message>
        <source>The transformers with the adapters merged in: transformer/ and transformer_2/ (WanTransformer3DModel.from_pretrained each), to put in place of the pipeline&apos;s; an expert the run did not train is the base&apos;s.</source>
        <translation>合并了适配器的 Transformer：transformer/ 和 transformer_2/（各用 WanTransformer3DModel.from_pretrained 加载），用来替换管线中的对应部分；本次运行未训练的专家即为基础模型的。</translation>
    </message>
    <message>
        <source>For any diffusers reader: the transformer with the adapter merged in (or the fine-tuned one), as a diffusers transformer folder (WanTransformer3DModel.from_pretrained); no LoRA support needed to load it.</source>
        <translation>适用于任何 diffusers 读取方：合并了适配器的（或全量微调的）Transformer，为 diffusers Transformer 文件夹（WanTransformer3DModel.from_pretrained）；加载时无需 LoRA 支持。</translation>
    </message>
    <message>
        <source>Exported and verified, each file reloaded and compared with its trained expert:</source>
        <translation>已导出并校验，每个文件都已重新加载并与其训练好的专家比较：</translation>
    </message>
    <message>
        <source>• %1 (%2): differs by at most %3 (tolerance %4)</source>
        <translation>• %1（%2）：最大差异 %3（容差 %4）</translation>
    </message>
</context>
<context>
    <name>RunFailurePanel</name>
    <message>
        <source>This run failed</source>
        <translation>此运行失败</translation>
    </message>
    <message>
        <source>What to do: %1</source>
        <translation>处理方法：%1</translation>
    </message>
    <message>
        <source>Last lines from the engine</source>
        <translation>引擎的最后几行输出</translation>
    </message>
</context>
<context>
    <name>RunHistoryModel</name>
    <message>
        <source>%1 / %2</source>
        <translation>%1 / %2</translation>
    </message>
    <message>
        <source>Run</source>
        <translation>运行</translation>
    </message>
    <message>
        <source>State</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>Step</source>
        <translation>步数</translation>
    </message>
    <message>
        <source>Loss</source>
        <translation>损失</translation>
    </message>
    <message>
        <source>Preset</source>
        <translation>预设</translation>
    </message>
    <message>
        <source>Started</source>
        <translation>开始时间</translation>
    </message>
    <message>
        <source>Sweep</source>
        <translation>参数扫描</translation>
    </message>
</context>
<context>
    <name>RunMemoryTable</name>
    <message>
        <source>Before training</source>
        <translation>训练前</translation>
    </message>
    <message>
        <source>Before validation</source>
        <translation>验证前</translation>
    </message>
    <message>
        <source>After validation</source>
        <translation>验证后</translation>
    </message>
    <message>
        <source>After testing</source>
        <translation>测试后</translation>
    </message>
    <message>
        <source>Validation: text encoder</source>
        <translation>验证：文本编码器</translation>
    </message>
    <message>
        <source>Validation: image</source>
        <translation>验证：图像编码</translation>
    </message>
    <message>
        <source>Validation: denoising</source>
        <translation>验证：去噪</translation>
    </message>
    <message>
        <source>Validation: VAE decode</source>
        <translation>验证：VAE 解码</translation>
    </message>
    <message>
        <source>Run</source>
        <translation>运行</translation>
    </message>
    <message>
        <source>Rank</source>
        <translation>进程号</translation>
    </message>
    <message>
        <source>%1 (GiB)</source>
        <translation>%1（GiB）</translation>
    </message>
</context>
<context>
    <name>RunQueuePanel</name>
    <message>
        <source>Queue</source>
        <translation>队列</translation>
    </message>
    <message>
        <source>%1. %2 (%3)</source>
        <translation>%1. %2（%3）</translation>
    </message>
    <message>
        <source>Up</source>
        <translation>上移</translation>
    </message>
    <message>
        <source>Down</source>
        <translation>下移</translation>
    </message>
    <message>
        <source>Remove</source>
        <translation>移除</translation>
    </message>
    <message>
        <source>Hold Queue</source>
        <translation>暂停队列</translation>
    </message>
    <message>
        <source>Start Queue</source>
        <translation>启动队列</translation>
    </message>
    <message>
        <source>Let the current run finish, then start no more.</source>
        <translation>让当前运行完成，之后不再启动新的运行。</translation>
    </message>
    <message>
        <source>Run the queued jobs one after another.</source>
        <translation>依次运行队列中的任务。</translation>
    </message>
    <message>
        <source>Continue past a failed run</source>
        <translation>某个运行失败后继续执行队列</translation>
    </message>
</context>
<context>
    <name>RunStateText</name>
    <message>
        <source>Queued</source>
        <translation>排队中</translation>
    </message>
    <message>
        <source>Preparing</source>
        <translation>准备中</translation>
    </message>
    <message>
        <source>Training</source>
        <translation>训练中</translation>
    </message>
    <message>
        <source>Validating</source>
        <translation>验证中</translation>
    </message>
    <message>
        <source>Paused</source>
        <translation>已暂停</translation>
    </message>
    <message>
        <source>Stopping</source>
        <translation>正在停止</translation>
    </message>
    <message>
        <source>Stopped</source>
        <translation>已停止</translation>
    </message>
    <message>
        <source>Finished</source>
        <translation>已完成</translation>
    </message>
    <message>
        <source>Failed</source>
        <translation>失败</translation>
    </message>
</context>
<context>
    <name>SamplePage</name>
    <message>
        <source>Cancelled.</source>
        <translation>已取消。</translation>
    </message>
    <message>
        <source>Choose a model folder and write a prompt.</source>
        <translation>请选择模型文件夹并填写提示词。</translation>
    </message>
    <message>
        <source>Rendering…</source>
        <translation>正在渲染…</translation>
    </message>
    <message>
        <source>Sample</source>
        <translation>采样</translation>
    </message>
    <message>
        <source>Render a video from a model and one of your adapters</source>
        <translation>用模型和您的适配器渲染视频</translation>
    </message>
    <message>
        <source>Model folder</source>
        <translation>模型文件夹</translation>
    </message>
    <message>
        <source>Adapter</source>
        <translation>适配器</translation>
    </message>
    <message>
        <source>Strength</source>
        <translation>强度</translation>
    </message>
    <message>
        <source>Prompt</source>
        <translation>提示词</translation>
    </message>
    <message>
        <source>Frames, height, width</source>
        <translation>帧数、高度、宽度</translation>
    </message>
    <message>
        <source>Steps</source>
        <translation>步数</translation>
    </message>
    <message>
        <source>Guidance</source>
        <translation>引导系数</translation>
    </message>
    <message>
        <source>Seed</source>
        <translation>随机种子</translation>
    </message>
    <message>
        <source>Generate</source>
        <translation>生成</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>No adapter (the base model)</source>
        <translation>不使用适配器（基础模型）</translation>
    </message>
    <message>
        <source>%1 · step %2 · %3</source>
        <translation>%1 · 第 %2 步 · %3</translation>
    </message>
    <message>
        <source>%1 · step %2 · fine-tuned transformer</source>
        <translation>%1 · 第 %2 步 · 微调后的 Transformer</translation>
    </message>
    <message>
        <source>Rendered in %1 s.</source>
        <translation>渲染用时 %1 秒。</translation>
    </message>
    <message>
        <source>%1
What to do: %2</source>
        <translation>%1
处理方法：%2</translation>
    </message>
    <message>
        <source>Choose the Model Folder</source>
        <translation>选择模型文件夹</translation>
    </message>
    <message>
        <source>Choose the Condition Image</source>
        <translation>选择条件图像</translation>
    </message>
    <message>
        <source>Images and videos (*.png *.jpg *.jpeg *.webp *.bmp *.mp4 *.mov *.mkv *.webm);;All files (*)</source>
        <translation>图像和视频 (*.png *.jpg *.jpeg *.webp *.bmp *.mp4 *.mov *.mkv *.webm);;所有文件 (*)</translation>
    </message>
    <message>
        <source>Negative prompt</source>
        <translation>反向提示词</translation>
    </message>
    <message>
        <source>Optional: what the video should not show</source>
        <translation>可选：视频中不应出现的内容</translation>
    </message>
    <message>
        <source>Condition image</source>
        <translation>条件图像</translation>
    </message>
    <message>
        <source>Image-to-video models only: the first frame's picture</source>
        <translation>仅用于图生视频模型：第一帧的图像</translation>
    </message>
    <message>
        <source>Browse…</source>
        <translation>浏览…</translation>
    </message>
    <message>
        <source>Scheduler</source>
        <translation>调度器</translation>
    </message>
    <message>
        <source>DPM (what training validates with)</source>
        <translation>DPM（训练验证所用）</translation>
    </message>
    <message>
        <source>DDIM</source>
        <translation>DDIM</translation>
    </message>
    <message>
        <source>Dynamic guidance</source>
        <translation>动态引导</translation>
    </message>
    <message>
        <source>Guidance that grows over the denoising steps (CogVideoX's dynamic CFG): often steadier motion at high guidance.</source>
        <translation>随去噪步数逐渐增强的引导（CogVideoX 的动态 CFG）：在高引导值下运动通常更稳定。</translation>
    </message>
    <message>
        <source>DPM</source>
        <translation>DPM</translation>
    </message>
    <message>
        <source>Choosing a run&apos;s adapter sets the sampler its validation videos were made with.</source>
        <translation>选择某次运行的适配器时，会改用生成其验证视频的采样器。</translation>
    </message>
    <message>
        <source>%1 (%2)</source>
        <translation>%1（%2）</translation>
    </message>
    <message>
        <source>diffusers LoRA</source>
        <translation>diffusers LoRA</translation>
    </message>
    <message>
        <source>ComfyUI LoRA</source>
        <translation>ComfyUI LoRA</translation>
    </message>
    <message>
        <source>fine-tuned transformer</source>
        <translation>微调后的 Transformer</translation>
    </message>
    <message>
        <source>LoRA merged into the transformer</source>
        <translation>已合并 LoRA 的 Transformer</translation>
    </message>
    <message>
        <source>whole pipeline</source>
        <translation>完整管线</translation>
    </message>
    <message>
        <source>The settings of “%1”&apos;s validation videos: %2 steps, guidance %3.</source>
        <translation>已采用“%1”验证视频的设置：%2 步，引导系数 %3。</translation>
    </message>
    <message>
        <source>Low-noise adapter</source>
        <translation>低噪声适配器</translation>
    </message>
    <message>
        <source>The adapter of the low-noise expert, which refines detail in the last denoising steps; the adapter above goes to the high-noise expert.</source>
        <translation>低噪声专家的适配器，它在最后几个去噪步中细化细节；上方的适配器用于高噪声专家。</translation>
    </message>
    <message>
        <source>Guidance (low noise)</source>
        <translation>引导强度（低噪声）</translation>
    </message>
    <message>
        <source>The guidance of the low-noise expert&apos;s steps (Wan 2.2 A14B uses 3 there and 4 before).</source>
        <translation>低噪声专家各步的引导强度（Wan 2.2 A14B 在这些步用 3，之前用 4）。</translation>
    </message>
    <message>
        <source>Flow shift</source>
        <translation>流偏移</translation>
    </message>
    <message>
        <source>The scheduler&apos;s own</source>
        <translation>调度器自身的值</translation>
    </message>
    <message>
        <source>Moves the denoising steps toward the noisy end: Wan uses 3 at 480p and 5 at 720p.</source>
        <translation>把去噪步移向噪声较大的一端：Wan 在 480p 用 3，在 720p 用 5。</translation>
    </message>
    <message>
        <source>None (the low-noise expert as released)</source>
        <translation>无（使用发布时的低噪声专家）</translation>
    </message>
    <message>
        <source>The chosen export&apos;s low-noise expert</source>
        <translation>所选导出的低噪声专家</translation>
    </message>
    <message>
        <source>UniPC</source>
        <translation>UniPC</translation>
    </message>
    <message>
        <source>Flow-match Euler</source>
        <translation>流匹配 Euler</translation>
    </message>
</context>
<context>
    <name>Settings</name>
    <message>
        <source>Could not read the settings file %1 (%2), so Tuneframe started with default settings. Check the file&apos;s permissions.</source>
        <translation>无法读取设置文件 %1（%2），Tuneframe 已使用默认设置启动。请检查该文件的权限。</translation>
    </message>
    <message>
        <source>it does not hold a JSON object</source>
        <translation>文件内容不是 JSON 对象</translation>
    </message>
    <message>
        <source>its schemaVersion is not a whole number</source>
        <translation>其中的 schemaVersion 不是整数</translation>
    </message>
    <message>
        <source>Your settings file could not be read (%1), so Tuneframe started with default settings. The unreadable file was kept as %2.</source>
        <translation>无法读取您的设置文件（%1），Tuneframe 已使用默认设置启动。无法读取的文件已保留为 %2。</translation>
    </message>
    <message>
        <source>Your settings file %1 could not be read (%2) or moved aside, so Tuneframe started with default settings and will replace it.</source>
        <translation>无法读取您的设置文件 %1（%2），也无法将其移到一旁，Tuneframe 已使用默认设置启动，并将替换该文件。</translation>
    </message>
    <message>
        <source>the folder cannot be created</source>
        <translation>无法创建该文件夹</translation>
    </message>
    <message>
        <source>Could not save settings to %1: %2. Check that the folder is writable and the disk is not full.</source>
        <translation>无法将设置保存到 %1：%2。请检查该文件夹是否可写，以及磁盘是否已满。</translation>
    </message>
</context>
<context>
    <name>StudioPage</name>
    <message>
        <source>No project open</source>
        <translation>未打开项目</translation>
    </message>
    <message>
        <source>A project is a folder that holds your clips, captions and training runs. Create a new project, or open one you made before.</source>
        <translation>项目是存放视频片段、描述和训练运行的文件夹。请新建一个项目，或打开您之前创建的项目。</translation>
    </message>
    <message>
        <source>New Project…</source>
        <translation>新建项目…</translation>
    </message>
    <message>
        <source>Open Project…</source>
        <translation>打开项目…</translation>
    </message>
</context>
<context>
    <name>SweepComparisonDialog</name>
    <message>
        <source>Compare Sweep</source>
        <translation>比较参数扫描</translation>
    </message>
    <message>
        <source>Validation videos of</source>
        <translation>验证视频：</translation>
    </message>
    <message>
        <source>Step</source>
        <translation>步数</translation>
    </message>
    <message>
        <source>Loss (smoothed)</source>
        <translation>损失（平滑）</translation>
    </message>
    <message numerus="yes">
        <source>Sweep “%1”: %n run(s)</source>
        <translation>
            <numerusform>参数扫描“%1”：%n 次运行</numerusform>
        </translation>
    </message>
    <message>
        <source>Run</source>
        <translation>运行</translation>
    </message>
    <message>
        <source>State</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>Steps</source>
        <translation>步数</translation>
    </message>
    <message>
        <source>Final loss (smoothed)</source>
        <translation>最终损失（平滑）</translation>
    </message>
    <message>
        <source>Best loss</source>
        <translation>最佳损失</translation>
    </message>
    <message>
        <source>Median step time (s)</source>
        <translation>每步用时中位数（秒）</translation>
    </message>
    <message>
        <source>Peak memory (GiB)</source>
        <translation>峰值内存（GiB）</translation>
    </message>
    <message>
        <source>Prompt %1: %2</source>
        <translation>提示词 %1：%2</translation>
    </message>
    <message>
        <source>Step %1</source>
        <translation>第 %1 步</translation>
    </message>
</context>
<context>
    <name>SweepDialog</name>
    <message>
        <source>“%1” is not a choice for %2; write one of %3.</source>
        <translation>“%1”不是 %2 的可选值；请填写以下之一：%3。</translation>
    </message>
    <message>
        <source>“%1” is not a whole number for %2.</source>
        <translation>“%1”不是 %2 可用的整数。</translation>
    </message>
    <message>
        <source>“%1” is not a number for %2; write it like 1e-4 or 0.0001.</source>
        <translation>“%1”不是 %2 可用的数字；请写成 1e-4 或 0.0001 的形式。</translation>
    </message>
    <message>
        <source>Sweep</source>
        <translation>参数扫描</translation>
    </message>
    <message>
        <source>Each field takes a comma-separated list of values; every combination becomes a run in the queue, named after its values. The runs share one prepared cache.</source>
        <translation>每个字段填写以逗号分隔的取值；每种组合都会成为队列中的一次运行，并以其取值命名。这些运行共用同一份预处理缓存。</translation>
    </message>
    <message>
        <source>Sweep name</source>
        <translation>扫描名称</translation>
    </message>
    <message>
        <source>now %1</source>
        <translation>当前 %1</translation>
    </message>
    <message>
        <source>now %1; choices: %2</source>
        <translation>当前 %1；可选：%2</translation>
    </message>
    <message>
        <source>Queue Sweep</source>
        <translation>加入队列</translation>
    </message>
    <message>
        <source>Give values for at least one field.</source>
        <translation>请至少为一个字段填写取值。</translation>
    </message>
    <message>
        <source>… and %1 more</source>
        <translation>……另有 %1 个</translation>
    </message>
    <message numerus="yes">
        <source>%n run(s): %1</source>
        <translation>
            <numerusform>%n 次运行：%1</numerusform>
        </translation>
    </message>
    <message>
        <source>%1 is outside %2 to %3 for %4.</source>
        <translation>%4 的取值 %1 超出 %2 到 %3 的范围。</translation>
    </message>
</context>
<context>
    <name>TaskProgressBar</name>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
</context>
<context>
    <name>TensorBoardDialog</name>
    <message>
        <source>Open in TensorBoard</source>
        <translation>在 TensorBoard 中打开</translation>
    </message>
    <message>
        <source>The engine writes this run&apos;s TensorBoard event files to %1. Run this command in a terminal, then open %2 in a browser (install TensorBoard first, e.g. &quot;pip install tensorboard&quot;).</source>
        <translation>引擎将此运行的 TensorBoard 事件文件写入 %1。请在终端中运行此命令，然后在浏览器中打开 %2（请先安装 TensorBoard，例如“pip install tensorboard”）。</translation>
    </message>
    <message>
        <source>The engine writes this run&apos;s TensorBoard event files to %1. Run this command in a terminal, or press Start to run it and open %2.</source>
        <translation>引擎将此运行的 TensorBoard 事件文件写入 %1。请在终端中运行此命令，或按“启动”运行它并打开 %2。</translation>
    </message>
    <message>
        <source>Copy</source>
        <translation>复制</translation>
    </message>
    <message>
        <source>Start</source>
        <translation>启动</translation>
    </message>
    <message>
        <source>Close</source>
        <translation>关闭</translation>
    </message>
    <message>
        <source>Copied to the clipboard.</source>
        <translation>已复制到剪贴板。</translation>
    </message>
    <message>
        <source>TensorBoard could not be started (%1).</source>
        <translation>无法启动 TensorBoard（%1）。</translation>
    </message>
    <message>
        <source>TensorBoard is starting; reload its page in the browser if it is not up yet.</source>
        <translation>TensorBoard 正在启动；如果页面尚未就绪，请在浏览器中刷新。</translation>
    </message>
</context>
<context>
    <name>ThumbnailCache</name>
    <message>
        <source>“%1” is not a content hash.</source>
        <translation>“%1”不是内容哈希值。</translation>
    </message>
</context>
<context>
    <name>TrainPage</name>
    <message>
        <source>Start &amp;Training</source>
        <translation>开始训练(&amp;T)</translation>
    </message>
    <message>
        <source>Add to &amp;Queue</source>
        <translation>加入队列(&amp;Q)</translation>
    </message>
    <message>
        <source>The settings of “%1” are in the form. Fix what the message above names, then choose Train.</source>
        <translation>“%1”的设置已填入表单。请修改上方消息指出的问题，然后选择“训练”。</translation>
    </message>
    <message>
        <source>Delete Run…</source>
        <translation>删除运行…</translation>
    </message>
    <message>
        <source>Delete the run&apos;s checkpoints, validation videos and logs to free disk space</source>
        <translation>删除该运行的检查点、验证视频和日志以释放磁盘空间</translation>
    </message>
    <message>
        <source>Delete Run</source>
        <translation>删除运行</translation>
    </message>
    <message>
        <source>Delete the run “%1”?</source>
        <translation>要删除运行“%1”吗？</translation>
    </message>
    <message numerus="yes">
        <source>Its folder goes with its %n checkpoint(s), validation videos and logs: %1 on disk. This cannot be undone. Adapters you exported elsewhere and the project&apos;s latent cache stay.</source>
        <translation>
            <numerusform>其文件夹将连同 %n 个检查点、验证视频和日志一起删除：占用磁盘 %1。此操作无法撤销。您导出到其他位置的适配器和项目的潜变量缓存会保留。</numerusform>
        </translation>
    </message>
    <message>
        <source>Train</source>
        <translation>训练</translation>
    </message>
    <message>
        <source>Fine-tune a model on your accepted clips and watch it learn</source>
        <translation>用已接受的片段微调模型，并实时观察训练过程</translation>
    </message>
    <message>
        <source>Run name</source>
        <translation>运行名称</translation>
    </message>
    <message>
        <source>Export the accepted clips, prepare them and start training now.</source>
        <translation>导出已接受的片段，预处理后立即开始训练。</translation>
    </message>
    <message>
        <source>Add to Queue</source>
        <translation>加入队列</translation>
    </message>
    <message>
        <source>Keep this run in the queue; the queue runs one job after another.</source>
        <translation>将此运行放入队列；队列会依次运行任务。</translation>
    </message>
    <message>
        <source>Runs</source>
        <translation>运行记录</translation>
    </message>
    <message>
        <source>Compare with</source>
        <translation>对比</translation>
    </message>
    <message>
        <source>Run “%1” started.</source>
        <translation>运行“%1”已开始。</translation>
    </message>
    <message>
        <source>Run “%1” is in the queue.</source>
        <translation>运行“%1”已加入队列。</translation>
    </message>
    <message>
        <source>No comparison</source>
        <translation>不对比</translation>
    </message>
    <message>
        <source>Run “%1” failed: %2</source>
        <translation>运行“%1”失败：%2</translation>
    </message>
    <message>
        <source>Exported to %1</source>
        <translation>已导出到 %1</translation>
    </message>
    <message>
        <source>Run %1</source>
        <translation>运行 %1</translation>
    </message>
    <message>
        <source>Some presets were left out:
%1</source>
        <translation>部分预设未载入：
%1</translation>
    </message>
    <message>
        <source>The Run May Not Fit</source>
        <translation>此次运行可能放不下</translation>
    </message>
    <message>
        <source>Start Anyway</source>
        <translation>仍然开始</translation>
    </message>
    <message numerus="yes">
        <source>Sweep “%1”: %n run(s) in the queue.</source>
        <translation>
            <numerusform>参数扫描“%1”：%n 次运行已加入队列。</numerusform>
        </translation>
    </message>
    <message>
        <source>Sweep…</source>
        <translation>参数扫描…</translation>
    </message>
    <message>
        <source>Queue a run for every combination of a few settings.</source>
        <translation>为若干设置的每种组合各排队一次运行。</translation>
    </message>
    <message>
        <source>Compare the Sweep’s Runs…</source>
        <translation>比较本次扫描的各运行…</translation>
    </message>
    <message>
        <source>Commands for the Other Machines…</source>
        <translation>其他机器的命令…</translation>
    </message>
    <message>
        <source>%1 (%2)</source>
        <translation>%1（%2）</translation>
    </message>
    <message>
        <source>Model: %1</source>
        <translation>模型：%1</translation>
    </message>
    <message>
        <source>%1 steps at learning rate %2, batch %3</source>
        <translation>%1 步，学习率 %2，批大小 %3</translation>
    </message>
    <message>
        <source>Frames %1 at %2</source>
        <translation>帧数 %1，分辨率 %2</translation>
    </message>
    <message>
        <source>The settings of “%1” are in the form: change what you like, then choose Train.</source>
        <translation>“%1”的设置已填入表单：按需修改后，点击“训练”。</translation>
    </message>
    <message>
        <source>Run &amp;name</source>
        <translation>运行名称(&amp;N)</translation>
    </message>
    <message>
        <source>New run</source>
        <translation>新运行</translation>
    </message>
    <message>
        <source>Open Run Folder</source>
        <translation>打开运行文件夹</translation>
    </message>
    <message>
        <source>Use These Settings</source>
        <translation>使用这些设置</translation>
    </message>
    <message>
        <source>Put this run&apos;s settings in the new-run form, to train again with changes.</source>
        <translation>将此运行的设置填入新运行表单，修改后再次训练。</translation>
    </message>
    <message>
        <source>Edit Settings</source>
        <translation>编辑设置</translation>
    </message>
    <message>
        <source>Hide Settings</source>
        <translation>收起设置</translation>
    </message>
    <message>
        <source>Open the settings of the next run.</source>
        <translation>展开下一次运行的设置。</translation>
    </message>
    <message>
        <source>Fold the settings into a summary, so the plots get the room. Train stays here.</source>
        <translation>将设置收起为摘要，把空间留给图表；“训练”按钮仍在此处。</translation>
    </message>
</context>
<context>
    <name>TrainingClipPlan</name>
    <message>
        <source>Unusable file: %1</source>
        <translation>文件不可用：%1</translation>
    </message>
    <message>
        <source>Too short: %1 frames, fewer than its nearest bucket</source>
        <translation>太短：%1 帧，少于最接近的分桶所需</translation>
    </message>
    <message>
        <source>%1×%2 cropped to %3×%4, losing %5% of the picture</source>
        <translation>%1×%2 裁剪为 %3×%4，画面损失 %5%</translation>
    </message>
    <message>
        <source>%1×%2 stretched to %3×%4</source>
        <translation>%1×%2 拉伸为 %3×%4</translation>
    </message>
    <message>
        <source>No caption</source>
        <translation>没有描述</translation>
    </message>
    <message>
        <source>%1 could not be read: %2</source>
        <translation>无法读取 %1：%2</translation>
    </message>
    <message numerus="yes">
        <source>%n clip(s) train</source>
        <translation>
            <numerusform>%n 个片段参与训练</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n stretched to a bucket of another shape</source>
        <translation>
            <numerusform>%n 个被拉伸到形状不同的分桶</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n cropped to a bucket of another shape</source>
        <translation>
            <numerusform>%n 个被裁剪到形状不同的分桶</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n left out</source>
        <translation>
            <numerusform>%n 个被排除</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n not reviewed yet</source>
        <translation>
            <numerusform>%n 个尚未审核</numerusform>
        </translation>
    </message>
    <message>
        <source>Trains as it is</source>
        <translation>按原样训练</translation>
    </message>
    <message>
        <source>Stretched</source>
        <translation>拉伸</translation>
    </message>
    <message>
        <source>Cropped</source>
        <translation>裁剪</translation>
    </message>
    <message>
        <source>Left out</source>
        <translation>排除</translation>
    </message>
</context>
<context>
    <name>TrainingHistory</name>
    <message>
        <source>The run could not be recorded in the project database: %1</source>
        <translation>无法在项目数据库中记录此运行：%1</translation>
    </message>
    <message>
        <source>The sweep could not be recorded in the project database: %1</source>
        <translation>无法将参数扫描记录到项目数据库：%1</translation>
    </message>
    <message>
        <source>This project is open in another studio, so this window only shows it. Start runs from that studio, or close it and open the project here again.</source>
        <translation>此项目已在另一个工作室中打开，因此此窗口只能查看。请在那个工作室中启动运行，或关闭它后在此处重新打开项目。</translation>
    </message>
</context>
<context>
    <name>TrainingPreferences</name>
    <message>
        <source>Could not save the training settings in “%1”: %2. Check that the project folder is writable and the disk is not full.</source>
        <translation>无法将训练设置保存到“%1”：%2。请检查项目文件夹是否可写，以及磁盘是否已满。</translation>
    </message>
</context>
<context>
    <name>TrainingRuns</name>
    <message>
        <source>The run is no longer in this project.</source>
        <translation>该运行已不在此项目中。</translation>
    </message>
    <message>
        <source>“%1” is still running. Stop it first, then delete it.</source>
        <translation>“%1”仍在运行。请先停止它，然后再删除。</translation>
    </message>
    <message>
        <source>The run could not be removed from the project database: %1</source>
        <translation>无法从项目数据库中删除该运行：%1</translation>
    </message>
    <message>
        <source>The training settings cannot be used: %1 %2</source>
        <translation>训练设置无法使用：%1 %2</translation>
    </message>
    <message>
        <source>The training settings cannot be used: %1</source>
        <translation>训练设置无法使用：%1</translation>
    </message>
    <message>
        <source>Choose the model folder to train (a diffusers CogVideoX pipeline).</source>
        <translation>请选择要训练的模型文件夹（diffusers 格式的 CogVideoX 流水线）。</translation>
    </message>
    <message>
        <source>The run folder %1 could not be created. Check that the project folder is writable and the disk has space.</source>
        <translation>无法创建运行文件夹 %1。请检查项目文件夹是否可写、磁盘是否有空间。</translation>
    </message>
    <message>
        <source>The dataset has no usable clips. On the Dataset page, import clips, caption them and accept the ones to learn from.</source>
        <translation>数据集中没有可用的片段。请在“数据集”页面导入片段、添加描述，并接受要用于训练的片段。</translation>
    </message>
    <message>
        <source>The dataset could not be exported for training: %1</source>
        <translation>无法导出训练用数据集：%1</translation>
    </message>
    <message>
        <source>%1 could not be written: %2</source>
        <translation>无法写入 %1：%2</translation>
    </message>
    <message>
        <source>Only a stopped or failed run can continue.</source>
        <translation>只有已停止或失败的运行才能继续。</translation>
    </message>
    <message>
        <source>steps</source>
        <translation>步</translation>
    </message>
    <message>
        <source>The engine stopped while the studio was closed, without saying why.</source>
        <translation>工作室关闭期间引擎停止了，且未说明原因。</translation>
    </message>
    <message>
        <source>The engine stopped unexpectedly (it may have been killed or crashed).</source>
        <translation>引擎意外停止（可能被终止或崩溃）。</translation>
    </message>
    <message>
        <source>Look at the last lines below, then choose Continue: the run resumes from its newest checkpoint.</source>
        <translation>请查看下面的最后几行输出，然后选择“继续”：运行会从最新的检查点恢复。</translation>
    </message>
    <message>
        <source>The sweep cannot be used: %1 %2</source>
        <translation>无法使用该参数扫描：%1 %2</translation>
    </message>
    <message>
        <source>The sweep cannot be used: %1</source>
        <translation>无法使用该参数扫描：%1</translation>
    </message>
    <message>
        <source>A line of events.jsonl was skipped: %1</source>
        <translation>已跳过 events.jsonl 中的一行：%1</translation>
    </message>
</context>
<context>
    <name>TriggerWordDialog</name>
    <message>
        <source>Type the trigger word, a rare token such as “sks” that the model learns as the name of your subject.</source>
        <translation>请输入触发词，例如“sks”这样的罕见词元，模型会将其学习为您的主体的名称。</translation>
    </message>
    <message>
        <source>Every caption already holds “%1”.</source>
        <translation>每条描述中都已包含“%1”。</translation>
    </message>
    <message>
        <source>1 caption will change. This is one step you can undo with Ctrl+Z.</source>
        <translation>将更改 1 条描述。此操作可用 Ctrl+Z 一步撤销。</translation>
    </message>
    <message>
        <source>%1 captions will change. This is one step you can undo with Ctrl+Z.</source>
        <translation>将更改 %1 条描述。此操作可用 Ctrl+Z 一步撤销。</translation>
    </message>
    <message>
        <source>Add Trigger Word</source>
        <translation>添加触发词</translation>
    </message>
    <message>
        <source>Trigger &amp;word:</source>
        <translation>触发词(&amp;W)：</translation>
    </message>
    <message>
        <source>At the &amp;start of each caption</source>
        <translation>添加到每条描述的开头(&amp;S)</translation>
    </message>
    <message>
        <source>At the &amp;end of each caption</source>
        <translation>添加到每条描述的末尾(&amp;E)</translation>
    </message>
    <message>
        <source>&amp;Add</source>
        <translation>添加(&amp;A)</translation>
    </message>
</context>
<context>
    <name>TrimmedClipRenderer</name>
    <message>
        <source>“%1” ended at frame %2, before the end of its trim. Import the clip again to check it, then export again.</source>
        <translation>“%1”在第 %2 帧就已结束，早于其裁剪范围的终点。请重新导入该片段以进行检查，然后重新导出。</translation>
    </message>
    <message>
        <source>Could not cut frames %1 to %2 of “%3” into “%4”: %5</source>
        <translation>无法将“%3”的第 %1 至 %2 帧切分到“%4”：%5</translation>
    </message>
</context>
<context>
    <name>UserFile</name>
    <message>
        <source>“%1” is a folder, not a file, so it was not read. Name a file, or import the folder itself.</source>
        <translation>“%1”是文件夹而不是文件，因此未读取。请指定一个文件，或直接导入该文件夹。</translation>
    </message>
    <message>
        <source>“%1” is a device, not a regular file, so it was not read. Name a video, image or text file instead.</source>
        <translation>“%1”是设备而不是普通文件，因此未读取。请改为指定视频、图片或文本文件。</translation>
    </message>
    <message>
        <source>“%1” is a named pipe (FIFO), not a regular file, so it was not read: reading it could wait forever. Save what it delivers to a file and name that file.</source>
        <translation>“%1”是命名管道（FIFO）而不是普通文件，因此未读取：读取它可能会无限等待。请将其输出保存为文件，然后指定该文件。</translation>
    </message>
    <message>
        <source>“%1” is a socket, not a regular file, so it was not read. Name a video, image or text file instead.</source>
        <translation>“%1”是套接字而不是普通文件，因此未读取。请改为指定视频、图片或文本文件。</translation>
    </message>
    <message>
        <source>“%1” cannot be examined or is not a regular file, so it was not read. Check the path and its permissions.</source>
        <translation>无法检查“%1”，或它不是普通文件，因此未读取。请检查路径及其权限。</translation>
    </message>
    <message>
        <source>“%1” does not exist. Check the path, or whether the file was moved or renamed.</source>
        <translation>“%1”不存在。请检查路径，或确认该文件是否已被移动或重命名。</translation>
    </message>
    <message>
        <source>Could not read “%1” (%2). Check that the file exists and that you may read it.</source>
        <translation>无法读取“%1”（%2）。请检查该文件是否存在，以及您是否有读取权限。</translation>
    </message>
    <message>
        <source>Could not read “%1” to the end (%2). Copy the file again or check the drive.</source>
        <translation>无法完整读取“%1”（%2）。请重新复制该文件，或检查驱动器。</translation>
    </message>
    <message>
        <source>Reading “%1” took too long and was stopped. Copy the file to a local drive, then import it again.</source>
        <translation>读取“%1”耗时过长，已停止。请将该文件复制到本地磁盘，然后重新导入。</translation>
    </message>
    <message>
        <source>“%1” is larger than %2 MiB, too large for a caption or dataset file, so it was not read. Name the right file.</source>
        <translation>“%1”大于 %2 MiB，作为描述或数据集文件过大，因此未读取。请指定正确的文件。</translation>
    </message>
</context>
<context>
    <name>VideoPlayerWidget</name>
    <message>
        <source>Previous frame (Left)</source>
        <translation>上一帧（Left）</translation>
    </message>
    <message>
        <source>Next frame (Right)</source>
        <translation>下一帧（Right）</translation>
    </message>
    <message>
        <source>Loop</source>
        <translation>循环</translation>
    </message>
    <message>
        <source>Play the clip again from the start when it ends (L)</source>
        <translation>片段播放结束后从头重新播放（L）</translation>
    </message>
    <message>
        <source>Playback speed</source>
        <translation>播放速度</translation>
    </message>
    <message>
        <source>%1×</source>
        <translation>%1×</translation>
    </message>
    <message>
        <source>Set In</source>
        <translation>设置入点</translation>
    </message>
    <message>
        <source>Start the clip&apos;s training range at this frame (I)</source>
        <translation>将此帧设为片段训练范围的起点（I）</translation>
    </message>
    <message>
        <source>Set Out</source>
        <translation>设置出点</translation>
    </message>
    <message>
        <source>End the clip&apos;s training range at this frame (O)</source>
        <translation>将此帧设为片段训练范围的终点（O）</translation>
    </message>
    <message>
        <source>Clear</source>
        <translation>清除</translation>
    </message>
    <message>
        <source>Use the whole clip for training</source>
        <translation>使用整个片段进行训练</translation>
    </message>
    <message>
        <source>Pause (Space)</source>
        <translation>暂停（Space）</translation>
    </message>
    <message>
        <source>Play (Space)</source>
        <translation>播放（Space）</translation>
    </message>
    <message>
        <source>Frame %1 of %2</source>
        <translation>第 %1 帧，共 %2 帧</translation>
    </message>
    <message>
        <source>%1 / %2</source>
        <translation>%1 / %2</translation>
    </message>
    <message>
        <source>Whole clip</source>
        <translation>整个片段</translation>
    </message>
    <message>
        <source>Frames %1–%2</source>
        <translation>第 %1–%2 帧</translation>
    </message>
    <message>
        <source>This clip cannot be played</source>
        <translation>无法播放此片段</translation>
    </message>
    <message>
        <source>Frame %1 cannot be shown</source>
        <translation>无法显示第 %1 帧</translation>
    </message>
    <message>
        <source>Play or pause</source>
        <translation>播放或暂停</translation>
    </message>
    <message>
        <source>Previous frame</source>
        <translation>上一帧</translation>
    </message>
    <message>
        <source>Next frame</source>
        <translation>下一帧</translation>
    </message>
    <message>
        <source>First frame</source>
        <translation>第一帧</translation>
    </message>
    <message>
        <source>Last frame</source>
        <translation>最后一帧</translation>
    </message>
    <message>
        <source>Set the trim&apos;s in mark at this frame</source>
        <translation>在此帧设置裁剪范围的入点</translation>
    </message>
    <message>
        <source>Set the trim&apos;s out mark at this frame</source>
        <translation>在此帧设置裁剪范围的出点</translation>
    </message>
    <message>
        <source>Loop on or off</source>
        <translation>开启或关闭循环</translation>
    </message>
</context>
<context>
    <name>RunDeletion</name>
    <message>
        <source>The run folder %1 could not be renamed for deletion: check that no program has a file in it open and that the project folder is writable.</source>
        <translation>无法重命名运行文件夹 %1 以进行删除：请检查没有程序打开其中的文件，并且项目文件夹可写。</translation>
    </message>
</context>
<context>
    <name>CudaVisibleDevices</name>
    <message>
        <source>CUDA_VISIBLE_DEVICES is "%1": "%2" names no GPU of this computer, so it and the entries after it are left out.</source>
        <translation>CUDA_VISIBLE_DEVICES 为“%1”：“%2”不对应本机的任何 GPU，因此它及其后的条目都被忽略。</translation>
    </message>
    <message>
        <source>CUDA_VISIBLE_DEVICES is empty, which hides every GPU, so training runs on the CPU.</source>
        <translation>CUDA_VISIBLE_DEVICES 为空，所有 GPU 都被隐藏，因此训练将在 CPU 上运行。</translation>
    </message>
</context>
<context>
    <name>EngineVersionCheck</name>
    <message>
        <source>%1 did not answer --version within %2 seconds.</source>
        <translation>%1 在 %2 秒内没有响应 --version。</translation>
    </message>
    <message>
        <source>%1 could not be started: %2. Choose the tuneframe-engine executable.</source>
        <translation>无法启动 %1：%2。请选择 tuneframe-engine 可执行文件。</translation>
    </message>
    <message>
        <source>%1 is not tuneframe-engine: --version printed “%2”.</source>
        <translation>%1 不是 tuneframe-engine：--version 输出为“%2”。</translation>
    </message>
</context>
<context>
    <name>DashboardPlot</name>
    <message>
        <source>Logarithmic Scale</source>
        <translation>对数刻度</translation>
    </message>
    <message>
        <source>Fit</source>
        <translation>适应</translation>
    </message>
    <message>
        <source>Log scale</source>
        <translation>对数刻度</translation>
    </message>
    <message>
        <source>Show the values on a logarithmic axis, so late, small changes stay visible.</source>
        <translation>在对数坐标轴上显示数值，使后期的细小变化依然清晰可见。</translation>
    </message>
</context>
<context>
    <name>PreferencesDialog</name>
    <message>
        <source>Found %1 at %2.</source>
        <translation>在 %2 找到 %1。</translation>
    </message>
    <message>
        <source>Preferences</source>
        <translation>偏好设置</translation>
    </message>
    <message>
        <source>&amp;Engine:</source>
        <translation>引擎(&amp;E)：</translation>
    </message>
    <message>
        <source>Automatic: %1</source>
        <translation>自动：%1</translation>
    </message>
    <message>
        <source>The tuneframe-engine that prepares, trains and exports. Leave empty to use the one found automatically (TUNEFRAME_ENGINE, then beside the studio, then PATH).</source>
        <translation>负责准备、训练和导出的 tuneframe-engine。留空则使用自动找到的引擎（依次查找 TUNEFRAME_ENGINE、工作室所在目录、PATH）。</translation>
    </message>
    <message>
        <source>Browse…</source>
        <translation>浏览…</translation>
    </message>
    <message>
        <source>&amp;New projects in:</source>
        <translation>新项目位置(&amp;N)：</translation>
    </message>
    <message>
        <source>The folder the New Project dialog proposes.</source>
        <translation>“新建项目”对话框默认建议的文件夹。</translation>
    </message>
    <message>
        <source>Checking…</source>
        <translation>正在检查…</translation>
    </message>
    <message>
        <source>Choose tuneframe-engine</source>
        <translation>选择 tuneframe-engine</translation>
    </message>
    <message>
        <source>Folder for New Projects</source>
        <translation>新项目所在文件夹</translation>
    </message>
    <message>
        <source>&amp;Language:</source>
        <translation>语言(&amp;L)：</translation>
    </message>
    <message>
        <source>As the system&apos;s (%1)</source>
        <translation>跟随系统（%1）</translation>
    </message>
    <message>
        <source>Applies at once when you choose OK; no restart.</source>
        <translation>点击“确定”后立即生效，无需重启。</translation>
    </message>
    <message>
        <source>As the system&apos;s</source>
        <translation>跟随系统</translation>
    </message>
</context>
<context>
    <name>ShortcutsDialog</name>
    <message>
        <source>Keyboard Shortcuts</source>
        <translation>键盘快捷键</translation>
    </message>
    <message>
        <source>Command</source>
        <translation>命令</translation>
    </message>
    <message>
        <source>Shortcut</source>
        <translation>快捷键</translation>
    </message>
    <message>
        <source>Where</source>
        <translation>位置</translation>
    </message>
    <message>
        <source>On its page</source>
        <translation>在所属页面</translation>
    </message>
    <message>
        <source>In a video player</source>
        <translation>在视频播放器中</translation>
    </message>
</context>
<context>
    <name>PreparedSkips</name>
    <message>
        <source>%1 could not be read: %2</source>
        <translation>无法读取 %1：%2</translation>
    </message>
    <message>
        <source>Line %1 of %2 is not valid JSON (%3). Choose Continue to prepare the run again.</source>
        <translation>%2 的第 %1 行不是有效的 JSON（%3）。请选择“继续”以重新准备此运行。</translation>
    </message>
    <message>
        <source>too short for the frames this run trains</source>
        <translation>比此运行训练的帧数短</translation>
    </message>
    <message>
        <source>no bucket of this run fits it</source>
        <translation>此运行没有适合它的分桶</translation>
    </message>
    <message>
        <source>its trim lies outside the clip</source>
        <translation>其裁剪范围超出了片段</translation>
    </message>
    <message>
        <source>its length or size could not be read</source>
        <translation>无法读取其长度或尺寸</translation>
    </message>
    <message>
        <source>the file is missing</source>
        <translation>文件不存在</translation>
    </message>
    <message>
        <source>the file is empty</source>
        <translation>文件为空</translation>
    </message>
    <message>
        <source>the file is not a video</source>
        <translation>文件不是视频</translation>
    </message>
    <message>
        <source>the video is damaged</source>
        <translation>视频已损坏</translation>
    </message>
    <message>
        <source>the video is cut short: it lacks frames its container lists</source>
        <translation>视频被截断：缺少容器所列的部分帧</translation>
    </message>
    <message>
        <source>its format is not supported</source>
        <translation>不支持其格式</translation>
    </message>
    <message>
        <source>the file could not be read</source>
        <translation>无法读取文件</translation>
    </message>
    <message>
        <source>it lies outside the dataset folder</source>
        <translation>它位于数据集文件夹之外</translation>
    </message>
</context>
<context>
    <name>SkippedClipsPanel</name>
    <message>
        <source>Clips left out of this run: %1</source>
        <translation>此运行略过的片段：%1</translation>
    </message>
    <message>
        <source>Preparing the run did not use them; the run trains on the other clips. Fix or remove them on the Dataset page.</source>
        <translation>准备此运行时未使用它们；此运行使用其余片段训练。请在“数据集”页面修复或移除它们。</translation>
    </message>
    <message>
        <source>A preset that trains fewer frames keeps short clips.</source>
        <translation>训练帧数较少的预设可以保留较短的片段。</translation>
    </message>
    <message>
        <source>Clip</source>
        <translation>片段</translation>
    </message>
    <message>
        <source>Why</source>
        <translation>原因</translation>
    </message>
    <message>
        <source>Show in Dataset</source>
        <translation>在数据集中显示</translation>
    </message>
    <message>
        <source>Selects these clips on the Dataset page (the selected rows only, when some are selected).</source>
        <translation>在“数据集”页面选中这些片段（若已选中部分行，则只选这些行）。</translation>
    </message>
    <message>
        <source>(a manifest line)</source>
        <translation>（清单中的一行）</translation>
    </message>
    <message>
        <source>Shows each clip and why it was left out.</source>
        <translation>显示每个被略过的片段及原因。</translation>
    </message>
</context>
<context>
    <name>AdvancedJobFields</name>
    <message>
        <source>Frame buckets: “%1” is not a list of frame counts. Write them like 9, 17, 49 (each a multiple of 8, plus 1).</source>
        <translation>帧数分桶：“%1”不是帧数列表。请写成 9, 17, 49 这样的形式（每个都是 8 的倍数加 1）。</translation>
    </message>
    <message>
        <source>Resolution buckets: “%1” is not a list of sizes. Write them as height x width, like 480x720, 240x360.</source>
        <translation>分辨率分桶：“%1”不是尺寸列表。请按“高x宽”书写，例如 480x720, 240x360。</translation>
    </message>
    <message>
        <source>Advanced</source>
        <translation>高级</translation>
    </message>
    <message>
        <source>Gradient checkpointing</source>
        <translation>梯度检查点</translation>
    </message>
    <message>
        <source>Gradient accumulation</source>
        <translation>梯度累积</translation>
    </message>
    <message>
        <source>Gradient clipping</source>
        <translation>梯度裁剪</translation>
    </message>
    <message>
        <source>Learning-rate schedule</source>
        <translation>学习率调度</translation>
    </message>
    <message>
        <source>Warmup steps</source>
        <translation>预热步数</translation>
    </message>
    <message>
        <source>Seed</source>
        <translation>随机种子</translation>
    </message>
    <message>
        <source>Frame buckets</source>
        <translation>帧数分桶</translation>
    </message>
    <message>
        <source>Resolution buckets</source>
        <translation>分辨率分桶</translation>
    </message>
    <message>
        <source>Fit clips by</source>
        <translation>片段适配方式</translation>
    </message>
    <message>
        <source>Caption dropout</source>
        <translation>描述丢弃率</translation>
    </message>
    <message>
        <source>VAE tiling</source>
        <translation>VAE 分块</translation>
    </message>
    <message>
        <source>VAE slicing</source>
        <translation>VAE 切片</translation>
    </message>
    <message>
        <source>Recompute activations in the backward pass</source>
        <translation>在反向传播中重新计算激活值</translation>
    </message>
    <message>
        <source>Saves most of the activation memory for about a third more time per step. Leave it on unless the model fits without it.</source>
        <translation>节省大部分激活内存，每步约多花三分之一的时间。除非不开启也放得下模型，否则请保持开启。</translation>
    </message>
    <message>
        <source>Steps whose gradients add up before the optimizer moves: the effective batch is the batch size times this, at the memory of one batch.</source>
        <translation>优化器更新前累加梯度的步数：有效批大小为批大小乘以此值，而内存只占一个批次。</translation>
    </message>
    <message>
        <source>Off</source>
        <translation>关闭</translation>
    </message>
    <message>
        <source>Gradients whose norm exceeds this are scaled down to it, which keeps a bad batch from throwing training off. 0 turns clipping off.</source>
        <translation>范数超过此值的梯度会被缩放到此值，以免一个坏批次打乱训练。0 表示不裁剪。</translation>
    </message>
    <message>
        <source>Constant</source>
        <translation>恒定</translation>
    </message>
    <message>
        <source>Constant after warmup</source>
        <translation>预热后恒定</translation>
    </message>
    <message>
        <source>Linear decay</source>
        <translation>线性衰减</translation>
    </message>
    <message>
        <source>Cosine decay</source>
        <translation>余弦衰减</translation>
    </message>
    <message>
        <source>Cosine with restarts</source>
        <translation>带重启的余弦</translation>
    </message>
    <message>
        <source>Polynomial decay</source>
        <translation>多项式衰减</translation>
    </message>
    <message>
        <source>How the learning rate changes over the run's steps.</source>
        <translation>学习率在整个运行的步数中如何变化。</translation>
    </message>
    <message>
        <source>Steps over which the learning rate rises from 0 to its value at the start.</source>
        <translation>开始时学习率从 0 升到设定值所用的步数。</translation>
    </message>
    <message>
        <source>Seeds the LoRA's initial weights, the noise and the crops: the same seed and data repeat a run exactly.</source>
        <translation>决定 LoRA 的初始权重、噪声和裁剪：相同的种子和数据会完全重现一次运行。</translation>
    </message>
    <message>
        <source>The clip lengths trained, in frames (each a multiple of 8, plus 1: 9, 17, …, 49). A clip trains at the longest that fits it; one shorter than all is left out.</source>
        <translation>训练的片段长度（帧数，每个都是 8 的倍数加 1：9, 17, …, 49）。片段按能容纳它的最长长度训练；比所有长度都短的片段会被略过。</translation>
    </message>
    <message>
        <source>The sizes trained, height x width in pixels (multiples of 16). Each clip trains at the size nearest its own shape.</source>
        <translation>训练的尺寸，高x宽，单位为像素（16 的倍数）。每个片段按最接近其形状的尺寸训练。</translation>
    </message>
    <message>
        <source>Stretching</source>
        <translation>拉伸</translation>
    </message>
    <message>
        <source>Cropping the centre</source>
        <translation>居中裁剪</translation>
    </message>
    <message>
        <source>Cropping at random</source>
        <translation>随机裁剪</translation>
    </message>
    <message>
        <source>How a clip whose shape differs from its bucket is fitted to it: stretched whole, or scaled to cover it and cropped.</source>
        <translation>形状与分桶不同的片段如何适配：整体拉伸，或缩放到覆盖后再裁剪。</translation>
    </message>
    <message>
        <source>The share of steps that train on an empty caption, which helps guidance-free sampling. 0 keeps every caption.</source>
        <translation>使用空描述训练的步数比例，有助于无引导采样。0 表示保留所有描述。</translation>
    </message>
    <message>
        <source>Encode and decode in tiles</source>
        <translation>分块编码和解码</translation>
    </message>
    <message>
        <source>Less memory while preparing clips and decoding validation videos, at some speed.</source>
        <translation>准备片段和解码验证视频时占用更少内存，但会慢一些。</translation>
    </message>
    <message>
        <source>One video at a time</source>
        <translation>一次一个视频</translation>
    </message>
    <message>
        <source>The VAE encodes and decodes a batch one video at a time: less memory, same result.</source>
        <translation>VAE 逐个视频编码和解码一个批次：内存更少，结果相同。</translation>
    </message>
    <message>
        <source>Recomputed blocks</source>
        <translation>重算的块数</translation>
    </message>
    <message>
        <source>All blocks</source>
        <translation>全部块</translation>
    </message>
    <message>
        <source>Recompute only the first this many transformer blocks; the others keep their activations. Each kept block makes a step faster and takes more memory: the estimate below shows how much. CogVideoX-2b has 30 blocks, 5b has 42.</source>
        <translation>只重算前这么多个 Transformer 块，其余块保留激活值。每多保留一个块，每步更快，但占用更多显存：下方的估算会显示多出多少。CogVideoX-2b 有 30 个块，5b 有 42 个。</translation>
    </message>
    <message>
        <source>Attention</source>
        <translation>注意力</translation>
    </message>
    <message>
        <source>Keep attention results</source>
        <translation>保留注意力结果</translation>
    </message>
    <message>
        <source>Recomputed blocks keep what attention computed, so the backward pass does not run attention again: on a GPU about a tenth faster per step, for about 2 GiB more with CogVideoX-2b at 49 × 480 × 720 (4.4 GiB with 5b). The estimate below counts it.</source>
        <translation>重新计算的模块保留注意力的计算结果，反向传播时不再重新运行注意力：在 GPU 上每步约快十分之一，CogVideoX-2b 在 49 × 480 × 720 下约多占 2 GiB 显存（5b 约 4.4 GiB）。下方的估算已计入。</translation>
    </message>
    <message>
        <source>Frame buckets: “%1” is not a list of frame counts. Write them like 9, 17, 49, 81 (each 4k + 1).</source>
        <translation>帧数分桶：“%1”不是帧数列表。请写成 9, 17, 49, 81 这样的形式（每个都是 4k + 1）。</translation>
    </message>
    <message>
        <source>%1 became %2</source>
        <translation>%1 改为 %2</translation>
    </message>
    <message>
        <source>This model takes frame counts of %1k + 1: %2.</source>
        <translation>此模型的帧数须为 %1k + 1：%2。</translation>
    </message>
    <message>
        <source>%1x%2 became %3</source>
        <translation>%1x%2 改为 %3</translation>
    </message>
    <message>
        <source>This model takes sides in multiples of %1 pixels: %2.</source>
        <translation>此模型的边长须为 %1 像素的倍数：%2。</translation>
    </message>
    <message>
        <source>Flow shift</source>
        <translation>流偏移</translation>
    </message>
    <message>
        <source>Noise levels</source>
        <translation>噪声水平</translation>
    </message>
    <message>
        <source>Loss weighting</source>
        <translation>损失加权</translation>
    </message>
    <message>
        <source>The clip lengths trained, in frames (each 4k + 1: 9, 17, 33, 49, 81, …). A clip trains at the longest that fits it; one shorter than all is left out. Other counts are rounded to the nearest that fits when you leave the field.</source>
        <translation>训练的片段长度，以帧计（每个都是 4k + 1：9、17、33、49、81……）。片段按能容纳它的最长长度训练；比所有长度都短的片段会被略过。离开此字段时，其他帧数会取整到最接近的可用值。</translation>
    </message>
    <message>
        <source>The sizes trained, height x width in pixels (multiples of %1 for this model). Each clip trains at the size nearest its own shape. Other sizes are rounded to the nearest multiple when you leave the field.</source>
        <translation>训练的尺寸，高 x 宽，以像素计（此模型须为 %1 的倍数）。每个片段按最接近其自身形状的尺寸训练。离开此字段时，其他尺寸会取整到最接近的倍数。</translation>
    </message>
    <message>
        <source>The model&apos;s own</source>
        <translation>模型自身的值</translation>
    </message>
    <message>
        <source>Moves the noise levels trained toward the noisy end: higher for larger videos, as more pixels need more noise before their content is gone. Wan trains with 3 at 480p and 5 at 720p; the model&apos;s own is its scheduler&apos;s.</source>
        <translation>把训练的噪声水平移向噪声较大的一端：视频越大取值越高，因为像素越多，需要越多噪声才能抹去其内容。Wan 在 480p 用 3、在 720p 用 5 训练；“模型自身的值”即其调度器的设置。</translation>
    </message>
    <message>
        <source>Evenly over all levels</source>
        <translation>在所有水平上均匀</translation>
    </message>
    <message>
        <source>Mostly middle levels (logit-normal)</source>
        <translation>多取中间水平（logit-normal）</translation>
    </message>
    <message>
        <source>Middle levels, gently (mode)</source>
        <translation>温和地偏向中间水平（mode）</translation>
    </message>
    <message>
        <source>Where the noise level of each training step is drawn: evenly, or more often in the middle, where a model learns the most (Stable Diffusion 3&apos;s logit-normal, as musubi-tuner&apos;s shift sampling draws them). The flow shift applies after.</source>
        <translation>每个训练步的噪声水平从何处抽取：均匀抽取，或更多地取中间水平——模型在那里学到的最多（Stable Diffusion 3 的 logit-normal，与 musubi-tuner 的 shift 采样相同）。之后再应用流偏移。</translation>
    </message>
    <message>
        <source>Equal</source>
        <translation>相同</translation>
    </message>
    <message>
        <source>By noise level (σ²)</source>
        <translation>按噪声水平（σ²）</translation>
    </message>
    <message>
        <source>Cosine map</source>
        <translation>余弦映射</translation>
    </message>
    <message>
        <source>How much each step&apos;s loss counts by its noise level. Equal is what Wan was trained with; the others weigh noisier steps more (σ²) or follow Stable Diffusion 3&apos;s cosine map.</source>
        <translation>每步损失按其噪声水平计入的权重。Wan 训练时使用“相同”；其他选项让噪声较大的步权重更高（σ²），或采用 Stable Diffusion 3 的余弦映射。</translation>
    </message>
    <message numerus="yes">
        <source>Recompute only the first this many transformer blocks; the others keep their activations. Each kept block makes a step faster and takes more memory: the estimate below shows how much. This model has %n blocks.</source>
        <translation>
            <numerusform>只重新计算前这么多个 Transformer 块；其他块保留其激活。每保留一个块，一步会更快但占用更多显存：下方的估算会显示多少。此模型有 %n 个块。</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>ProjectLock</name>
    <message>
        <source>%1 is open in another Tuneframe studio (process %2 on %3), which alone starts and stops its runs and saves changes to it, so this window shows it read-only. To change it here, close the project in that studio and choose Try Again.</source>
        <translation>%1 已在另一个 Tuneframe 工作室中打开（%3 上的进程 %2），只有它能启动和停止其中的运行并保存更改，因此此窗口以只读方式显示。如需在此处更改，请在那个工作室中关闭该项目，然后选择“重试”。</translation>
    </message>
    <message>
        <source>this computer</source>
        <translation>本机</translation>
    </message>
    <message>
        <source>%1 cannot be opened: its lock file %2 could not be written. Check that the project folder is writable.</source>
        <translation>无法打开 %1：无法写入其锁文件 %2。请检查项目文件夹是否可写。</translation>
    </message>
</context>
<context>
    <name>ClipFieldChanges</name>
    <message>
        <source>the history names an unknown clip field “%1”</source>
        <translation>历史记录中有未知的片段字段“%1”</translation>
    </message>
</context>
<context>
    <name>HuggingFaceCache::Model</name>
    <message>
        <source>%1 (%2)</source>
        <translation>%1（%2）</translation>
    </message>
</context>
<context>
    <name>ProjectQueue</name>
    <message>
        <source>Cannot read %1: %2</source>
        <translation>无法读取 %1：%2</translation>
    </message>
    <message>
        <source>%1 is not valid JSON (%2). Delete it; the studio writes it again from the project&apos;s queue.</source>
        <translation>%1 不是有效的 JSON（%2）。请删除它，工作室会根据项目的队列重新写入。</translation>
    </message>
    <message>
        <source>Cannot write %1: %2</source>
        <translation>无法写入 %1：%2</translation>
    </message>
    <message>
        <source>The queue&apos;s runner could not be started (%1): %2. Build tuneframe-engine, or set TUNEFRAME_ENGINE to its path.</source>
        <translation>无法启动队列的运行器（%1）：%2。请构建 tuneframe-engine，或将 TUNEFRAME_ENGINE 设为它的路径。</translation>
    </message>
</context>
<context>
    <name>MachinesFields</name>
    <message>
        <source>Give this machine&apos;s address, which the other machines reach it at (for example 192.168.1.10).</source>
        <translation>请填写本机地址，其他机器通过它连接本机（例如 192.168.1.10）。</translation>
    </message>
    <message>
        <source>%1 is this machine&apos;s own loopback address, which the other machines cannot reach. Give its address on the network they share.</source>
        <translation>%1 是本机的回环地址，其他机器无法访问。请填写本机在各机器共享网络中的地址。</translation>
    </message>
    <message>
        <source>meeting at</source>
        <translation>汇合于</translation>
    </message>
    <message>
        <source>Machines that train this run together, each with the processes chosen above. This one is machine 0: it prepares the dataset and the others meet it. The run folder must be at the same path on every machine (a shared file system); after Train the studio shows the command to start on each other machine.</source>
        <translation>共同训练此运行的机器数，每台都使用上面选择的进程。本机是 0 号机器：由它准备数据集，其他机器与它汇合。运行文件夹在每台机器上的路径必须相同（共享文件系统）；点击“训练”后，工作室会显示在其他每台机器上要执行的命令。</translation>
    </message>
    <message>
        <source>This machine&apos;s address on the network the machines share.</source>
        <translation>本机在各机器共享网络中的地址。</translation>
    </message>
    <message>
        <source>this machine&apos;s address</source>
        <translation>本机地址</translation>
    </message>
    <message>
        <source>A free port on this machine that the other machines may reach.</source>
        <translation>本机上一个空闲且其他机器可以访问的端口。</translation>
    </message>
</context>
<context>
    <name>OtherMachinesDialog</name>
    <message>
        <source>Start the Other Machines</source>
        <translation>启动其他机器</translation>
    </message>
    <message>
        <source>Run “%1” trains on %2 machines, and this is machine 0. On each other machine, with Tuneframe installed and the run folder at the same path (a shared file system), run its line below. Machine 0 prepares the dataset first and the others wait for it, so they can be started now; training begins when all have joined.</source>
        <translation>运行“%1”在 %2 台机器上训练，本机是 0 号机器。请在其他每台机器上（已安装 Tuneframe，且运行文件夹位于相同路径，即共享文件系统）执行下面对应的一行命令。0 号机器会先准备数据集，其他机器会等待它，因此现在就可以启动它们；所有机器加入后开始训练。</translation>
    </message>
    <message>
        <source>Copy Commands</source>
        <translation>复制命令</translation>
    </message>
    <message>
        <source>Close</source>
        <translation>关闭</translation>
    </message>
</context>
<context>
    <name>ClipRemovals</name>
    <message>
        <source>clip %1 is no longer in the project</source>
        <translation>片段 %1 已不在项目中</translation>
    </message>
</context>
<context>
    <name>ReadOnlyBanner</name>
    <message>
        <source>Try Again</source>
        <translation>重试</translation>
    </message>
    <message>
        <source>Open the project again here, able to change it, if the other studio has let go.</source>
        <translation>如果另一个工作室已释放该项目，则在此处重新打开它并可以更改。</translation>
    </message>
</context>
</TS>
